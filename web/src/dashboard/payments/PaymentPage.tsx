import { type Account, isTerminal } from '@pis/shared';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatIban, formatSortCode } from '../../format/account.ts';
import { formatAmount } from '../../format/money.ts';
import { dashboardApi, type PaymentView } from '../api/dashboard-api.ts';
import { formatDateTime } from '../components/format-date.ts';
import { IsoCode } from '../components/IsoCode.tsx';
import { isoMeaning, isoWords, reasonMeaning, reasonWords } from '../components/iso-meaning.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { StatusBadge, statusLabel } from '../components/StatusBadge.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardLoad } from '../session/use-dashboard-call.ts';
import { PaymentActions } from './PaymentActions.tsx';
import { PaymentTimeline, whoFinished } from './PaymentTimeline.tsx';

/**
 * Each read after the first waits on the server for the payment to change (DESIGN.md "Live
 * reads"), under the server's 30 s idle connection timeout. A server that answered an unchanged
 * payment quickly did not wait (an older one, a stub): then read again after REFRESH_MS.
 */
const WAIT_SECONDS = 25;
const REFRESH_MS = 2000;
const QUICK_ANSWER_MS = 1000;

/** `/dashboard/payments/:paymentId`: everything about one payment, its history and what can be done. */
export const PaymentPage = () => {
  const { paymentId = '' } = useParams();
  // The last answer's etag and how that read went: the next read waits for a change from it.
  const last = useRef<{ paymentId: string; etag: string; changed: boolean; tookMs: number } | null>(null);
  const { result, reload } = useDashboardLoad(
    async (signal) => {
      const previous = last.current?.paymentId === paymentId ? last.current : null;
      const started = Date.now();
      const view = await dashboardApi.payment(
        paymentId,
        signal,
        previous ? { ifNoneMatch: previous.etag, waitSeconds: WAIT_SECONDS } : undefined,
      );
      last.current = {
        paymentId,
        etag: view.etag,
        changed: view.etag !== previous?.etag,
        tookMs: Date.now() - started,
      };
      return view;
    },
    paymentId,
    {
      keepPrevious: true,
    },
  );
  // What the last action did, said once and kept while the page reads the payment again.
  const [said, setSaid] = useState<{ paymentId: string; text: string } | null>(null);
  const saidRef = useRef<HTMLParagraphElement>(null);
  const onDone = (text: string) => {
    setSaid({ paymentId, text });
    reload();
  };
  // The button that was pressed may be gone (the actions change with the status): the focus
  // goes to what happened rather than to the top of the page.
  useEffect(() => {
    if (said) saidRef.current?.focus();
  }, [said]);

  // Not while a read is under way (`stale`): the next one starts when it answers.
  const live = result.state === 'ready' && !result.stale && !isTerminal(result.data.payment.status);

  // Live while the payment can still change: the status and timeline move on their own.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer starts the next read
  useEffect(() => {
    if (!live) return;
    const read = last.current;
    const serverDidNotWait = read !== null && !read.changed && read.tookMs < QUICK_ANSWER_MS;
    const timer = setTimeout(reload, serverDidNotWait ? REFRESH_MS : 0);
    return () => clearTimeout(timer);
  }, [live, result, reload]);

  return (
    <DashboardShell title={`Payment ${paymentId}`}>
      <p className="back">
        <Link to="/dashboard/payments">← All payments</Link>
      </p>
      <p role="status" className="action-status" tabIndex={-1} ref={saidRef}>
        {said?.paymentId === paymentId ? said.text : ''}
      </p>
      {result.state === 'loading' ? <LoadingStatus label="Loading payment…" /> : null}
      {result.state === 'failed' ? (
        <>
          <Heading>{result.error.kind === 'NOT_FOUND' ? 'Payment not found' : 'Payment'}</Heading>
          <LoadProblem error={result.error} onRetry={reload} />
        </>
      ) : null}
      {result.state === 'ready' ? <PaymentDetails view={result.data} onDone={onDone} /> : null}
    </DashboardShell>
  );
};

const accountText = (account: Account): string =>
  [
    account.accountName,
    account.iban ? formatIban(account.iban) : undefined,
    account.sortCode && account.accountNumber
      ? `${formatSortCode(account.sortCode)} ${account.accountNumber}`
      : undefined,
    account.bic,
    account.bankName,
  ]
    .filter(Boolean)
    .join(' · ');

const Row = ({ label, children }: { label: string; children: ReactNode }) => (
  <div className="details__row">
    <dt>{label}</dt>
    <dd>{children}</dd>
  </div>
);

/** The API's flow types as a merchant reads them. */
const FLOW_NAMES: Record<string, string> = {
  API_ONLY: 'Straight to the bank',
  HOSTED_PAGES: 'Our bank picker page',
  EMBEDDED_HOSTED_PAGES: 'Our bank picker, embedded',
};

const PaymentDetails = ({ view, onDone }: { view: PaymentView; onDone: (message: string) => void }) => {
  const { payment, customerLink } = view;
  const linkValid = customerLink !== null && Date.parse(customerLink.expiresAt) > Date.now();
  return (
    <>
      <Heading>
        {formatAmount(payment.amount.value, payment.amount.currency)} <StatusBadge status={payment.status} />
      </Heading>
      <p role="status" className="visually-hidden">
        Status: {statusLabel(payment.status)}
      </p>
      <dl className="details">
        <Row label="Payment id">
          <code>{payment.paymentId}</code>
        </Row>
        <Row label="Status">
          {/* In words; the API's and ISO's codes on hover and focus (issue 34 item 11). */}
          <IsoCode code={statusLabel(payment.status)} meaning={`API status ${payment.status}`} /> ·{' '}
          <IsoCode code={isoWords(payment.isoStatus)} meaning={isoMeaning(payment.isoStatus)} />
          {payment.isoStatus.reason ? (
            <>
              {' · '}
              <IsoCode
                code={reasonWords(payment.isoStatus, whoFinished(payment)) ?? payment.isoStatus.reason.name}
                meaning={reasonMeaning(payment.isoStatus.reason)}
              />
            </>
          ) : null}
        </Row>
        {payment.error ? (
          <Row label="Rejection">
            {payment.error.code}
            {payment.error.message ? `: ${payment.error.message}` : ''}
          </Row>
        ) : null}
        <Row label="To">{accountText(payment.toAccount)}</Row>
        {payment.fromAccount ? <Row label="From">{accountText(payment.fromAccount)}</Row> : null}
        <Row label="Reference">{payment.reference.reference}</Row>
        <Row label="End-to-end id">
          <code>{payment.reference.endToEndId}</code>
        </Row>
        <Row label="Flow">
          {/* In words; the API's code on hover and focus (issue 34 item 11). */}
          <IsoCode code={FLOW_NAMES[payment.flowType] ?? payment.flowType} meaning={payment.flowType} />
        </Row>
        <Row label="Provider">{payment.provider}</Row>
        <Row label="Bank">{payment.bankId ?? (payment.flowType === 'API_ONLY' ? '—' : 'Not chosen yet')}</Row>
        {view.atBank ? (
          <Row label="At the bank">
            {/* The provider's own statuses by its own names (obie: consent, payment). */}
            {Object.keys(view.atBank).length === 0
              ? 'No news from the bank yet'
              : Object.entries(view.atBank).map(([name, status], index) => (
                  <span key={name}>
                    {index > 0 ? ' · ' : ''}
                    {name} <code>{status}</code>
                  </span>
                ))}
          </Row>
        ) : null}
        <Row label="Created">
          <RelativeTime iso={payment.createdAt} />
        </Row>
        {payment.completedAt ? (
          <Row label="Completed">
            <RelativeTime iso={payment.completedAt} />
          </Row>
        ) : null}
        {/* A finished payment no longer expires: its page must not say it will. */}
        {payment.expiresAt && !isTerminal(payment.status) ? (
          <Row label="Expires">
            <RelativeTime iso={payment.expiresAt} />
          </Row>
        ) : null}
        {payment.redirectUrl ? (
          <Row label="Return URL">
            <span className="details__url">{payment.redirectUrl}</span>
          </Row>
        ) : null}
        {linkValid ? (
          <Row label="Customer page">
            <a href={customerLink.url} target="_blank" rel="noopener noreferrer">
              Open the customer’s page
            </a>{' '}
            <span className="details__hint">valid until {formatDateTime(customerLink.expiresAt)}</span>
          </Row>
        ) : null}
      </dl>

      <PaymentActions key={payment.status} payment={payment} allowed={view.actions} onDone={onDone} />

      <section aria-labelledby="history-heading" className="section">
        <h2 id="history-heading" className="subheading">
          Timeline
        </h2>
        <PaymentTimeline history={payment.statusHistory ?? []} />
      </section>
    </>
  );
};
