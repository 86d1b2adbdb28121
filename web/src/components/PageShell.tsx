import type { CSSProperties, ReactNode } from 'react';
import type { PageBrand } from '../api/page-types.ts';
import { useDocumentTitle } from './use-document-title.ts';

interface PageShellProps {
  /** Whose page this is: the payment service's hosted page, or the practice bank. */
  variant: 'hosted' | 'bank';
  brand: string;
  title: string;
  /** A sandbox payment: every customer page that shows one says so (the Mock bank always is). */
  testPayment?: boolean;
  /**
   * A verified merchant's brand (null until the operator verified it): on the hosted pages its
   * logo and name in the brand bar and its accent on buttons and links. The bank's own pages
   * keep the bank's frame (see MerchantMark).
   */
  merchant?: PageBrand | null | undefined;
  children: ReactNode;
}

/** The accent as the stylesheet's own variables: checked for contrast by the server (4.5:1). */
const accentStyle = (accent: string | null | undefined): CSSProperties | undefined =>
  accent ? ({ '--primary': accent, '--primary-dark': accent } as CSSProperties) : undefined;

/** Frame of every customer page: a brand bar, one main card, a short footer. */
export const PageShell = ({ variant, brand, title, testPayment, merchant, children }: PageShellProps) => {
  useDocumentTitle(title);
  const test = testPayment ?? variant === 'bank';
  const branded = variant === 'hosted' ? merchant : null;
  return (
    <div
      className={`shell shell--${variant}${branded ? ' shell--branded' : ''}`}
      style={accentStyle(branded?.accentColor)}
    >
      <header className="topbar">
        {branded?.logoUrl ? (
          <img
            className="topbar__logo"
            src={branded.logoUrl}
            alt=""
            height={32}
            data-testid="merchant-logo"
          />
        ) : null}
        <span className="topbar__brand">{branded?.displayName || brand}</span>
        {variant === 'bank' ? <span className="topbar__tag">Practice bank · no real money moves</span> : null}
      </header>
      <main className="page">
        {test ? (
          <p className="test-mark" data-testid="test-mark">
            <strong>Test payment:</strong> no money moves
          </p>
        ) : null}
        <div className="card">{children}</div>
      </main>
      <footer className="footer">
        Secure connection · your bank details are never shared with the merchant
      </footer>
    </div>
  );
};
