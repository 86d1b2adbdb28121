import { type FormEvent, useState } from 'react';
import type { RejectReason } from '../../api/page-types.ts';
import { RejectReasonField } from '../../pages/mock-bank/RejectReasonField.tsx';
import { type ScenarioChoice, ScenarioPanel, toScenario } from '../../pages/mock-bank/ScenarioPanel.tsx';
import { dashboardApi, type PaymentView } from '../api/dashboard-api.ts';
import { FormProblem } from '../components/FormProblem.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';

/** Which actions apply: decided by the server from the lifecycle's own rules (`payments.get`). */
type AllowedActions = PaymentView['actions'];

interface PaymentActionsProps {
  paymentId: string;
  allowed: AllowedActions;
  /** After any action: read the payment again (the server's answer is the truth). */
  onChanged: () => void;
}

/**
 * Cancel, and for a Mock bank payment waiting for its customer, Approve (with a scenario) and
 * Reject (with a reason): the same domain calls as the API and its sandbox helpers.
 */
export const PaymentActions = ({ paymentId, allowed, onChanged }: PaymentActionsProps) => {
  const [choice, setChoice] = useState<ScenarioChoice>({ kind: 'preset', preset: 'instant' });
  const [reason, setReason] = useState<RejectReason>('CUST');
  const [invalid, setInvalid] = useState(false);
  const cancel = useDashboardAction(dashboardApi.cancel);
  const approve = useDashboardAction(dashboardApi.approve);
  const reject = useDashboardAction(dashboardApi.reject);
  const busy = cancel.pending || approve.pending || reject.pending;
  const error = cancel.error ?? approve.error ?? reject.error;

  if (!allowed.cancel && !allowed.approve && !allowed.reject) return null;

  const done = (result: { ok: boolean }) => {
    if (result.ok) onChanged();
  };

  const onApprove = async (event: FormEvent) => {
    event.preventDefault();
    const scenario = toScenario(choice);
    setInvalid(scenario === null);
    if (scenario) done(await approve.run(paymentId, scenario));
  };

  return (
    <section aria-labelledby="actions-heading" className="section">
      <h2 id="actions-heading" className="subheading">
        Actions
      </h2>
      <FormProblem error={error} />
      {allowed.approve ? (
        <form onSubmit={onApprove} className="action-box" noValidate>
          <p className="muted">This Mock bank payment waits for its customer. Decide for them:</p>
          <ScenarioPanel choice={choice} onChange={setChoice} invalid={invalid} disabled={busy} />
          <button type="submit" className="button button--primary" disabled={busy}>
            {approve.pending ? 'Approving…' : 'Approve'}
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
            onClick={async () => done(await reject.run(paymentId, reason))}
          >
            {reject.pending ? 'Rejecting…' : 'Reject'}
          </button>
        </div>
      ) : null}
      {allowed.cancel ? (
        <div className="action-box">
          <button
            type="button"
            className="button button--danger"
            disabled={busy}
            onClick={async () => done(await cancel.run(paymentId))}
          >
            {cancel.pending ? 'Cancelling…' : 'Cancel payment'}
          </button>
        </div>
      ) : null}
    </section>
  );
};
