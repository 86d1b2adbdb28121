import type { Amount, Payee, PaymentStatus } from '../../api/page-types.ts';
import { Heading } from '../../components/Heading.tsx';
import { statusText } from '../../format/labels.ts';
import { formatAmount } from '../../format/money.ts';

interface OutcomeViewProps {
  status: PaymentStatus;
  merchantName: string;
  amount: Amount;
  payee: Payee;
  returnUrl: string | null;
  focusOnShow?: boolean;
}

/** Where the payment ended up: shown after a decision without a return URL, and on revisits. */
export const OutcomeView = ({
  status,
  merchantName,
  amount,
  payee,
  returnUrl,
  focusOnShow,
}: OutcomeViewProps) => {
  const { title, detail, tone } = statusText(status, merchantName);
  return (
    <div className={`notice notice--${tone}`} data-status={status}>
      <span className="notice__icon" aria-hidden="true">
        {tone === 'success' ? '✓' : tone === 'failure' ? '✕' : '…'}
      </span>
      <Heading focusOnShow={focusOnShow}>{title}</Heading>
      <p>{detail}</p>
      <p className="muted">
        {formatAmount(amount.value, amount.currency)} to {payee.accountName}
      </p>
      {returnUrl ? (
        <a className="button button--primary" href={returnUrl}>
          Return to {merchantName}
        </a>
      ) : (
        <p>You can close this page.</p>
      )}
    </div>
  );
};
