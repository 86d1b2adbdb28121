import type { ReactNode } from 'react';
import { useDocumentTitle } from './use-document-title.ts';

interface PageShellProps {
  /** Whose page this is: the payment service's hosted page, or the practice bank. */
  variant: 'hosted' | 'bank';
  brand: string;
  title: string;
  /** A sandbox payment: every customer page that shows one says so (the Mock bank always is). */
  testPayment?: boolean;
  children: ReactNode;
}

/** Frame of every customer page: a brand bar, one main card, a short footer. */
export const PageShell = ({ variant, brand, title, testPayment, children }: PageShellProps) => {
  useDocumentTitle(title);
  const test = testPayment ?? variant === 'bank';
  return (
    <div className={`shell shell--${variant}`}>
      <header className="topbar">
        <span className="topbar__brand">{brand}</span>
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
