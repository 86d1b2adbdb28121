import type { ReactNode } from 'react';
import { useDocumentTitle } from './use-document-title.ts';

interface PageShellProps {
  /** Whose page this is: the payment service's hosted page, or the practice bank. */
  variant: 'hosted' | 'bank';
  brand: string;
  title: string;
  children: ReactNode;
}

/** Frame of every customer page: a brand bar, one main card, a short footer. */
export const PageShell = ({ variant, brand, title, children }: PageShellProps) => {
  useDocumentTitle(title);
  return (
    <div className={`shell shell--${variant}`}>
      <header className="topbar">
        <span className="topbar__brand">{brand}</span>
        {variant === 'bank' ? <span className="topbar__tag">Practice bank · no real money moves</span> : null}
      </header>
      <main className="page">
        <div className="card">{children}</div>
      </main>
      <footer className="footer">
        Secure connection · your bank details are never shared with the merchant
      </footer>
    </div>
  );
};
