import type { Bank } from '../../api/page-types.ts';
import { BankLogo, bankName } from '../../components/BankLogo.tsx';

interface EmbeddedConfirmProps {
  bank: Bank;
  choosing: boolean;
  onConfirm: () => void;
}

/** EMBEDDED_HOSTED_PAGES: the merchant already picked the bank; the customer confirms it. */
export const EmbeddedConfirm = ({ bank, choosing, onConfirm }: EmbeddedConfirmProps) => (
  <section className="picker" aria-labelledby="embedded-bank-title">
    <h2 id="embedded-bank-title" className="subheading">
      Your bank
    </h2>
    <div className="bank-card">
      <BankLogo bank={bank} />
      <span className="bank-option__name">{bankName(bank)}</span>
    </div>
    <p className="muted">You will approve the payment on your bank’s page.</p>
    <button
      type="button"
      className="button button--primary button--block"
      disabled={choosing}
      onClick={onConfirm}
    >
      {choosing ? `Opening ${bankName(bank)}…` : `Confirm and continue to ${bankName(bank)}`}
    </button>
  </section>
);
