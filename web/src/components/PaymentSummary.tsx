import type { Amount, Bank, Payee } from '../api/page-types.ts';
import { formatIban, formatSortCode } from '../format/account.ts';
import { formatAmount } from '../format/money.ts';
import { bankName } from './BankLogo.tsx';

interface PaymentSummaryProps {
  amount: Amount;
  payee: Payee;
  reference: string;
  bank?: Bank | null;
}

/** Who is paid, how much and with which reference: what the customer agrees to. */
export const PaymentSummary = ({ amount, payee, reference, bank }: PaymentSummaryProps) => (
  <div className="summary">
    <p className="summary__label">Amount to pay</p>
    <p className="summary__amount" data-testid="amount">
      {formatAmount(amount.value, amount.currency)}
    </p>
    <dl className="summary__rows">
      <div className="summary__row">
        <dt>To</dt>
        <dd>
          {payee.accountName}
          {payee.bankName ? <span className="muted"> · {payee.bankName}</span> : null}
          {accountText(payee) ? (
            <span className="summary__account" data-testid="payee-account">
              {accountText(payee)}
            </span>
          ) : null}
        </dd>
      </div>
      <div className="summary__row">
        <dt>Reference</dt>
        <dd>{reference || '—'}</dd>
      </div>
      {bank ? (
        <div className="summary__row">
          <dt>From</dt>
          <dd>{bankName(bank)}</dd>
        </div>
      ) : null}
    </dl>
  </div>
);

/** The payee's account as the customer checks it: 04-00-04 12345678, or the IBAN in groups of four. */
const accountText = (payee: Payee): string | null =>
  payee.iban
    ? formatIban(payee.iban)
    : payee.sortCode && payee.accountNumber
      ? `${formatSortCode(payee.sortCode)} ${payee.accountNumber}`
      : null;
