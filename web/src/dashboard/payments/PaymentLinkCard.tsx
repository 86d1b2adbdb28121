import { isTerminal, type PaymentStatus } from '@pis/shared';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { formatAmount } from '../../format/money.ts';
import { type CreatedPayment, dashboardApi } from '../api/dashboard-api.ts';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { CustomerLinkShare } from './CustomerLinkShare.tsx';
import { qrCodeDataUrl } from './qr-code.ts';
import { useLivePayment } from './use-live-payment.ts';
import './PaymentLinkCard.css';

/** A fresh link this long before the shown one expires: a customer scanning then still has time. */
const RENEW_BEFORE_MS = 5 * 60_000;
/** The shortest customer link (a bank's page, 30 minutes), when the first read has not said yet. */
const SHORTEST_LINK_MS = 30 * 60_000;

interface PaymentLinkCardProps {
  created: CreatedPayment;
  onAnother: () => void;
}

type Phase = 'waiting' | 'paid' | 'failed';

const phaseOf = (status: PaymentStatus): Phase =>
  status === 'COMPLETED' ? 'paid' : isTerminal(status) ? 'failed' : 'waiting';

const WAITING_TEXT: Partial<Record<PaymentStatus, string>> = {
  PENDING: 'Waiting for the customer to scan the code or open the link…',
  AUTHORIZING: 'The customer is at their bank…',
  AUTHORIZED: 'Approved by the customer: the bank is completing it…',
  SUBMITTED: 'Approved by the customer: the bank is completing it…',
  ACCEPTED: 'Approved by the customer: the bank is completing it…',
};

const FAILED_TEXT: Partial<Record<PaymentStatus, string>> = {
  FAILED: 'Payment failed',
  EXPIRED: 'Payment expired',
  CANCELLED: 'Payment cancelled',
};

/**
 * The New payment result, made for a counter: the QR code first and large enough to scan from
 * another phone, the link to copy under it. The card follows the payment by itself (waiting
 * reads) and turns into "Paid" with the amount, or says it failed. While the payment can still
 * be approved, the code never shows a dead link: a fresh one replaces it before it expires (the
 * API's links keep their one hour; the card asks for a new one, as "New customer link" does).
 * The focus lands on the heading so a screen reader announces that it worked.
 */
export const PaymentLinkCard = ({ created, onAnother }: PaymentLinkCardProps) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const amount = formatAmount(created.amount.value, created.amount.currency);
  const view = useLivePayment(created.paymentId);
  const status = view?.payment.status ?? created.status;
  const phase = phaseOf(status);
  const link = useFreshLink(created, view, phase === 'waiting');
  const [qr, setQr] = useState<string | null>(null);

  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (!link) return;
    let current = true;
    qrCodeDataUrl(link.url).then(
      (url) => current && setQr(url),
      () => current && setQr(null),
    );
    return () => {
      current = false;
    };
  }, [link]);

  const title =
    phase === 'paid'
      ? `Paid ${amount}`
      : phase === 'failed'
        ? `${FAILED_TEXT[status] ?? 'Not paid'}: ${amount}`
        : `Payment of ${amount} created`;

  return (
    <section
      className="section payment-link counter-card"
      aria-labelledby="payment-link-heading"
      data-phase={phase}
    >
      <h1 id="payment-link-heading" className="heading" tabIndex={-1} ref={heading}>
        {title}
      </h1>
      <p role="status" className="counter-card__status">
        {phase === 'waiting' ? (WAITING_TEXT[status] ?? 'Waiting for the customer…') : ''}
      </p>
      {phase === 'paid' ? (
        <p className="counter-card__result counter-card__result--paid" data-testid="counter-result">
          <span aria-hidden="true">✓ </span>Paid
          <span className="counter-card__result-amount">{amount}</span>
          {view?.payment.completedAt ? (
            <span>
              <RelativeTime iso={view.payment.completedAt} />
            </span>
          ) : null}
        </p>
      ) : phase === 'failed' ? (
        <div className="counter-card__result counter-card__result--failed" data-testid="counter-result">
          <p>
            <span aria-hidden="true">✕ </span>
            {FAILED_TEXT[status] ?? 'Not paid'}: nothing was paid.
            <span className="counter-card__result-amount">{amount}</span>
          </p>
          {view?.payment.isoStatus.reason ? <p>{view.payment.isoStatus.reason.name}</p> : null}
          <p>Make a new payment to ask again.</p>
        </div>
      ) : link ? (
        <div className="counter-card__waiting">
          {qr ? (
            <img
              className="counter-card__qr"
              src={qr}
              width={288}
              height={288}
              alt={`QR code of the link to pay ${amount}`}
            />
          ) : (
            <div className="counter-card__qr counter-card__qr--loading" aria-hidden="true" />
          )}
          <div>
            <p>
              Let your customer scan the code with their phone, or send them the link. It opens their payment
              page.
            </p>
            <CustomerLinkShare link={link.url} amount={amount} showQr={false}>
              <p className="muted">
                This code stays valid while the payment can be approved: a fresh link replaces it before it
                expires. The payment expires <RelativeTime iso={created.expiresAt} /> if it is not approved.
              </p>
            </CustomerLinkShare>
          </div>
        </div>
      ) : (
        <p>The bank gave no link for this payment: open it to see where it stands.</p>
      )}
      <div className="actions payment-link__next">
        <Link to={`/dashboard/payments/${encodeURIComponent(created.paymentId)}`}>View the payment</Link>
        <button
          type="button"
          className={phase === 'waiting' ? 'button' : 'button button--primary'}
          onClick={onAnother}
        >
          New payment
        </button>
      </div>
    </section>
  );
};

interface ShownLink {
  url: string;
  /** How long it lasts from when it was made, by the server's clock (never compared with ours). */
  lifetimeMs: number;
  /** When this page received it, by the page's clock: renewal is timed from here. */
  receivedAt: number;
}

/** Never renew more often than this, whatever the clocks say. */
const MIN_RENEWAL_GAP_MS = 60_000;

/**
 * The link the card shows: the created one, replaced by a fresh one (dashboard "New customer
 * link") RENEW_BEFORE_MS before it expires, for as long as the payment waits for its customer
 * and its links can be renewed. Timed by durations only, so a phone whose clock is off neither
 * shows a dead link nor asks for links in a loop. A renewal that fails is tried again a minute later.
 */
function useFreshLink(
  created: CreatedPayment,
  view: ReturnType<typeof useLivePayment>,
  waiting: boolean,
): ShownLink | null {
  const [link, setLink] = useState<ShownLink | null>(() =>
    created.redirectUrl
      ? { url: created.redirectUrl, lifetimeMs: SHORTEST_LINK_MS, receivedAt: Date.now() }
      : null,
  );
  // The first read tells the created link's real lifetime (its link is the one made at creation).
  const knownLifetime =
    view?.customerLink && view.customerLink.url === created.redirectUrl
      ? Date.parse(view.customerLink.expiresAt) - Date.parse(created.createdAt)
      : undefined;
  useEffect(() => {
    if (knownLifetime && knownLifetime > 0)
      setLink((shown) =>
        shown?.url === created.redirectUrl ? { ...shown, lifetimeMs: knownLifetime } : shown,
      );
  }, [knownLifetime, created.redirectUrl]);

  const renewable = waiting && (view?.actions.link ?? true) && link !== null;
  useEffect(() => {
    if (!renewable || !link) return;
    let timer: ReturnType<typeof setTimeout>;
    const renew = async () => {
      try {
        const fresh = await dashboardApi.newLink(created.paymentId);
        setLink({ url: fresh.redirectUrl, lifetimeMs: link.lifetimeMs, receivedAt: Date.now() });
      } catch {
        timer = setTimeout(renew, MIN_RENEWAL_GAP_MS);
      }
    };
    const due = link.receivedAt + link.lifetimeMs - RENEW_BEFORE_MS - Date.now();
    timer = setTimeout(renew, Math.max(MIN_RENEWAL_GAP_MS, due));
    return () => clearTimeout(timer);
  }, [renewable, link, created.paymentId]);
  return link;
}
