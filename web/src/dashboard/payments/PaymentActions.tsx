import { type FormEvent, useState } from 'react';
import type { RejectReason } from '../../api/page-types.ts';
import { REJECT_REASONS, SCENARIO_PRESETS } from '../../format/labels.ts';
import { formatAmount } from '../../format/money.ts';
import { RejectReasonField } from '../../pages/mock-bank/RejectReasonField.tsx';
import { type ScenarioChoice, ScenarioPanel, toScenario } from '../../pages/mock-bank/ScenarioPanel.tsx';
import { dashboardApi, type PaymentView } from '../api/dashboard-api.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { formatDateTime } from '../components/format-date.ts';
import { statusLabel } from '../components/StatusBadge.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { CustomerLinkShare } from './CustomerLinkShare.tsx';

type Payment = PaymentView['payment'];
type Scenario = NonNullable<ReturnType<typeof toScenario>>;

interface PaymentActionsProps {
  payment: Payment;
  /** Which actions apply: decided by the server from the lifecycle's own rules (`payments.get`). */
  allowed: PaymentView['actions'];
  /** After any action: what happened, in words, and read the payment again (the server's answer is the truth). */
  onDone: (message: string) => void;
}

/** How far "Advance time" moves a test payment's clock: past each step of the timelines, and the expiry. */
const CLOCK_SPANS = [
  { seconds: 15, label: '15 seconds' },
  { seconds: 60, label: '1 minute' },
  { seconds: 600, label: '10 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours (past the expiry)' },
] as const;

/** Each confirmation's words: the title names the payment and its amount. */
const DIALOGS = {
  cancel: {
    verb: 'Cancel',
    confirmLabel: 'Cancel payment',
    pendingLabel: 'Cancelling…',
    keepLabel: 'Keep payment',
    tone: 'danger',
  },
  approve: {
    verb: 'Approve',
    confirmLabel: 'Approve payment',
    pendingLabel: 'Approving…',
    keepLabel: 'Not now',
    tone: 'primary',
  },
  reject: {
    verb: 'Reject',
    confirmLabel: 'Reject payment',
    pendingLabel: 'Rejecting…',
    keepLabel: 'Keep payment',
    tone: 'danger',
  },
} as const;

type Asking = { action: 'cancel' } | { action: 'approve'; scenario: Scenario } | { action: 'reject' };

const scenarioText = (scenario: Scenario): string =>
  'preset' in scenario
    ? `${SCENARIO_PRESETS.find((entry) => entry.preset === scenario.preset)?.label ?? scenario.preset} scenario`
    : `completes ${scenario.completeAfterSeconds} s after approval`;

const reasonText = (reason: RejectReason): string => {
  const entry = REJECT_REASONS.find((candidate) => candidate.code === reason);
  return entry ? `${entry.code}, ${entry.hint.toLowerCase()}` : reason;
};

/**
 * Cancel, and for a Mock bank payment waiting for its customer, Approve (with a scenario) and
 * Reject (with a reason): the same domain calls as the API and its sandbox helpers. Each asks
 * first in a dialog that names the payment and its amount; afterwards the page says what
 * happened (`onDone`).
 */
export const PaymentActions = ({ payment, allowed, onDone }: PaymentActionsProps) => {
  const [choice, setChoice] = useState<ScenarioChoice>({ kind: 'preset', preset: 'instant' });
  const [reason, setReason] = useState<RejectReason>('CUST');
  const [invalid, setInvalid] = useState(false);
  const [asking, setAsking] = useState<Asking | null>(null);
  const cancel = useDashboardAction(dashboardApi.cancel);
  const approve = useDashboardAction(dashboardApi.approve);
  const reject = useDashboardAction(dashboardApi.reject);
  const advance = useDashboardAction(dashboardApi.advance);
  const newLink = useDashboardAction(dashboardApi.newLink);
  // The fresh link stays shown while this payment's status holds (the section is keyed by it).
  const [fresh, setFresh] = useState<{ url: string; expiresAt: string } | null>(null);
  const [span, setSpan] = useState<number>(CLOCK_SPANS[0].seconds);
  const calls = { cancel, approve, reject };
  const busy = cancel.pending || approve.pending || reject.pending || advance.pending || newLink.pending;

  if (!allowed.cancel && !allowed.approve && !allowed.reject && !allowed.advance && !allowed.link)
    return null;

  const amount = formatAmount(payment.amount.value, payment.amount.currency);
  const payee = payment.toAccount.accountName;
  const named = `${amount} to ${payee}`;

  const onApprove = (event: FormEvent) => {
    event.preventDefault();
    const scenario = toScenario(choice);
    setInvalid(scenario === null);
    if (scenario) setAsking({ action: 'approve', scenario });
  };

  const close = () => {
    cancel.clearError();
    approve.clearError();
    reject.clearError();
    setAsking(null);
  };

  const finish = (message: string) => {
    setAsking(null);
    onDone(message);
  };

  const onAdvance = async (event: FormEvent) => {
    event.preventDefault();
    const label = CLOCK_SPANS.find((entry) => entry.seconds === span)?.label ?? `${span} s`;
    const done = await advance.run(payment.paymentId, span);
    if (done.ok) {
      finish(`Moved the test clock of ${named} ${label} ahead. It is now ${statusLabel(done.value.status)}.`);
    }
  };

  // No confirmation: a new link changes nothing about the payment, and earlier links keep working.
  const onNewLink = async () => {
    const done = await newLink.run(payment.paymentId);
    if (done.ok) {
      setFresh({ url: done.value.redirectUrl, expiresAt: done.value.expiresAt });
      onDone(
        `Made a new customer link for ${named}, valid until ${formatDateTime(done.value.expiresAt)}. ` +
          'Send it to the customer; earlier links keep their own expiry.',
      );
    }
  };

  const confirm = async () => {
    if (!asking) return;
    const id = payment.paymentId;
    if (asking.action === 'cancel') {
      const done = await cancel.run(id);
      if (done.ok) finish(`Cancelled ${named}. It is now ${statusLabel(done.value.status)}.`);
    } else if (asking.action === 'approve') {
      const done = await approve.run(id, asking.scenario);
      if (done.ok) finish(`Approved ${named} as its customer. It is now ${statusLabel(done.value.status)}.`);
    } else {
      const done = await reject.run(id, reason);
      if (done.ok)
        finish(
          `Rejected ${named} as its customer (${reasonText(reason)}). It is now ${statusLabel(done.value.status)}.`,
        );
    }
  };

  return (
    <section aria-labelledby="actions-heading" className="section">
      <h2 id="actions-heading" className="subheading">
        Actions
      </h2>
      {allowed.approve ? (
        <form onSubmit={onApprove} className="action-box" noValidate>
          <p className="muted">This Mock bank payment waits for its customer. Decide for them:</p>
          <ScenarioPanel choice={choice} onChange={setChoice} invalid={invalid} disabled={busy} />
          <button type="submit" className="button button--primary" disabled={busy}>
            Approve
          </button>
        </form>
      ) : null}
      {allowed.reject ? (
        <div className="action-box">
          <RejectReasonField reason={reason} onChange={setReason} disabled={busy} />
          <button
            type="button"
            className="button button--danger"
            disabled={busy}
            onClick={() => setAsking({ action: 'reject' })}
          >
            Reject
          </button>
        </div>
      ) : null}
      {allowed.cancel ? (
        <div className="action-box">
          <button
            type="button"
            className="button button--danger"
            disabled={busy}
            onClick={() => setAsking({ action: 'cancel' })}
          >
            Cancel payment
          </button>
        </div>
      ) : null}
      {allowed.link ? (
        <div className="action-box">
          <p className="muted">Customer lost the link, or let it expire? Send them a fresh one.</p>
          {newLink.error ? (
            <p className="field__error" role="alert">
              {newLink.error.message}
            </p>
          ) : null}
          <button type="button" className="button" disabled={busy} onClick={onNewLink}>
            {newLink.pending ? 'Making a link…' : 'New customer link'}
          </button>
          {fresh ? (
            <CustomerLinkShare link={fresh.url} amount={amount}>
              <p className="muted">Valid until {formatDateTime(fresh.expiresAt)}.</p>
            </CustomerLinkShare>
          ) : null}
        </div>
      ) : null}
      {allowed.advance ? (
        <form onSubmit={onAdvance} className="action-box" aria-label="Test clock">
          <div className="field">
            <label htmlFor={`${payment.paymentId}-clock`}>Advance time</label>
            <select
              id={`${payment.paymentId}-clock`}
              value={span}
              disabled={busy}
              aria-describedby={`${payment.paymentId}-clock-hint`}
              onChange={(event) => setSpan(Number(event.target.value))}
            >
              {CLOCK_SPANS.map((entry) => (
                <option key={entry.seconds} value={entry.seconds}>
                  {entry.label}
                </option>
              ))}
            </select>
            <p id={`${payment.paymentId}-clock-hint`} className="field__hint">
              A test clock for this payment only: what falls due in that time happens now, marked simulated.
            </p>
          </div>
          {advance.error ? (
            <p className="field__error" role="alert">
              {advance.error.message}
            </p>
          ) : null}
          <button type="submit" className="button" disabled={busy}>
            {advance.pending ? 'Advancing…' : 'Advance time'}
          </button>
        </form>
      ) : null}
      {asking ? (
        <ConfirmDialog
          title={`${DIALOGS[asking.action].verb} the payment of ${named}?`}
          confirmLabel={DIALOGS[asking.action].confirmLabel}
          pendingLabel={DIALOGS[asking.action].pendingLabel}
          keepLabel={DIALOGS[asking.action].keepLabel}
          tone={DIALOGS[asking.action].tone}
          pending={calls[asking.action].pending}
          error={calls[asking.action].error}
          onConfirm={confirm}
          onKeep={close}
        >
          <p>
            Payment <code>{payment.paymentId}</code>
            {asking.action === 'cancel'
              ? `, reference “${payment.reference.reference}”. The customer can no longer approve it. This cannot be undone.`
              : asking.action === 'approve'
                ? `, as its customer would at the Mock bank (${scenarioText(asking.scenario)}). No real money moves.`
                : `, as its customer would at the Mock bank, with reason ${reasonText(reason)}. It ends as failed; this cannot be undone.`}
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
};
