import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { formatAmount } from '../../format/money.ts';
import type { CreatedPayment } from '../api/dashboard-api.ts';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { CustomerLinkShare } from './CustomerLinkShare.tsx';

interface PaymentLinkCardProps {
  created: CreatedPayment;
  onAnother: () => void;
}

/**
 * The new payment's customer link (`CustomerLinkShare`). The focus lands on the heading so a
 * screen reader announces that it worked.
 */
export const PaymentLinkCard = ({ created, onAnother }: PaymentLinkCardProps) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const link = created.redirectUrl;
  const amount = formatAmount(created.amount.value, created.amount.currency);

  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="section payment-link" aria-labelledby="payment-link-heading">
      <h1 id="payment-link-heading" className="heading" tabIndex={-1} ref={heading}>
        Payment of {amount} created
      </h1>
      {link ? (
        <>
          <p>Send this link to your customer, or let them scan the code. It opens their payment page.</p>
          <CustomerLinkShare link={link} amount={amount}>
            <p className="muted">
              Links are short-lived (an hour for our page, 30 minutes for a bank’s); the payment expires{' '}
              <RelativeTime iso={created.expiresAt} /> if it is not approved.
            </p>
          </CustomerLinkShare>
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
