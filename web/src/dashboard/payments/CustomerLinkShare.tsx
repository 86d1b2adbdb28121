import { type ReactNode, useEffect, useState } from 'react';
import { qrCodeDataUrl } from './qr-code.ts';

interface CustomerLinkShareProps {
  /** The customer's link: a new payment's, or a fresh one for an unfinished payment. */
  link: string;
  /** The amount in words, for the QR code's text alternative. */
  amount: string;
  /** What the merchant should know about the link's life, under the buttons. */
  children?: ReactNode;
  /** False where the page shows the code itself, larger (New payment's counter card). */
  showQr?: boolean;
}

/**
 * A customer link to copy into a message, to open, or to show as a QR code at a counter. One
 * component for "New payment" and "New customer link", so both offer the link the same way.
 */
export const CustomerLinkShare = ({ link, amount, children, showQr = true }: CustomerLinkShareProps) => {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [qr, setQr] = useState<string | null>(null);

  useEffect(() => {
    setCopied(null);
    if (!showQr) return;
    let current = true;
    qrCodeDataUrl(link).then(
      (url) => current && setQr(url),
      () => current && setQr(null),
    );
    return () => {
      current = false;
    };
  }, [link, showQr]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <div className="payment-link__body">
      <div className="payment-link__text">
        <label htmlFor="payment-link-url" className="field__hint">
          Customer link
        </label>
        <input
          id="payment-link-url"
          className="payment-link__url"
          readOnly
          value={link}
          onFocus={(event) => event.target.select()}
        />
        <div className="actions">
          <button type="button" className="button button--primary" onClick={copy}>
            Copy link
          </button>
          <a className="button" href={link} target="_blank" rel="noopener noreferrer">
            Open the customer’s page
          </a>
        </div>
        <p role="status" className="new-key__copied">
          {copied === 'yes'
            ? 'Link copied to the clipboard.'
            : copied === 'failed'
              ? 'Copying failed: select the link and copy it.'
              : ''}
        </p>
        {children}
      </div>
      {qr && showQr ? (
        <img
          className="payment-link__qr"
          src={qr}
          width={220}
          height={220}
          alt={`QR code of the link to pay ${amount}`}
        />
      ) : null}
    </div>
  );
};
