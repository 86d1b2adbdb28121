import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatAmount } from '../../format/money.ts';
import type { CreatedPayment } from '../api/dashboard-api.ts';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { qrCodeDataUrl } from './qr-code.ts';

interface PaymentLinkCardProps {
  created: CreatedPayment;
  onAnother: () => void;
}

/**
 * The new payment's customer link: to copy into a message, or to show as a QR code at a
 * counter. The focus lands on the heading so a screen reader announces that it worked.
 */
export const PaymentLinkCard = ({ created, onAnother }: PaymentLinkCardProps) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const link = created.redirectUrl;
  const amount = formatAmount(created.amount.value, created.amount.currency);

  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (!link) return;
    let current = true;
    qrCodeDataUrl(link).then(
      (url) => current && setQr(url),
      () => current && setQr(null),
    );
    return () => {
      current = false;
    };
  }, [link]);

  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };

  return (
    <section className="section payment-link" aria-labelledby="payment-link-heading">
      <h1 id="payment-link-heading" className="heading" tabIndex={-1} ref={heading}>
        Payment of {amount} created
      </h1>
      {link ? (
        <>
          <p>Send this link to your customer, or let them scan the code. It opens their payment page.</p>
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
              <p className="muted">
                Links are short-lived (an hour for our page, 30 minutes for a bank’s); the payment expires{' '}
                <RelativeTime iso={created.expiresAt} /> if it is not approved.
              </p>
            </div>
            {qr ? (
              <img
                className="payment-link__qr"
                src={qr}
                width={220}
                height={220}
                alt={`QR code of the link to pay ${amount}`}
              />
            ) : null}
          </div>
        </>
      ) : (
        <p>The bank gave no link for this payment: open it to see where it stands.</p>
      )}
      <div className="actions payment-link__next">
        <Link to={`/dashboard/payments/${encodeURIComponent(created.paymentId)}`}>View the payment</Link>
        <button type="button" className="button" onClick={onAnother}>
          New payment
        </button>
      </div>
    </section>
  );
};
