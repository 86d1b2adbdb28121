import { useRef, useState } from 'react';
import type { ChosenScenario, MockBankSession, RejectReason } from '../../api/page-types.ts';
import { Heading } from '../../components/Heading.tsx';
import { PaymentSummary } from '../../components/PaymentSummary.tsx';
import { RejectReasonField } from './RejectReasonField.tsx';
import { initialChoice, type ScenarioChoice, ScenarioPanel, toScenario } from './ScenarioPanel.tsx';

export type Decision =
  | { action: 'approve'; scenario: ChosenScenario }
  | { action: 'reject'; reason: RejectReason };

interface DecisionStepProps {
  session: MockBankSession;
  /** The decision being sent, while it is. */
  pending: Decision['action'] | null;
  problem: string | null;
  onDecide: (decision: Decision) => void;
}

/** After login: the payment, the practice scenario, and the two choices. */
export const DecisionStep = ({ session, pending, problem, onDecide }: DecisionStepProps) => {
  const [choice, setChoice] = useState<ScenarioChoice>(() => initialChoice(session.scenario));
  const [reason, setReason] = useState<RejectReason>(session.scenario.rejectReason);
  const [invalid, setInvalid] = useState(false);
  const panelRef = useRef<HTMLDivElement>(null);
  const busy = pending !== null;

  const approve = () => {
    const scenario = toScenario(choice);
    if (!scenario) {
      setInvalid(true);
      panelRef.current?.querySelector<HTMLInputElement>('input[type="number"]')?.focus();
      return;
    }
    onDecide({ action: 'approve', scenario });
  };

  return (
    <>
      <Heading focusOnShow>Approve payment to {session.merchantName}</Heading>
      <PaymentSummary
        amount={session.amount}
        payee={session.payee}
        reference={session.reference}
        bank={session.bank}
      />
      {problem ? (
        <p className="inline-problem" role="alert">
          {problem}
        </p>
      ) : null}
      <div ref={panelRef}>
        <ScenarioPanel
          choice={choice}
          onChange={(next) => {
            setChoice(next);
            setInvalid(false);
          }}
          invalid={invalid}
          disabled={busy}
        />
      </div>
      <button
        type="button"
        className="button button--primary button--block"
        disabled={busy}
        onClick={approve}
      >
        {pending === 'approve' ? 'Approving…' : 'Approve payment'}
      </button>
      <section className="panel panel--reject" aria-labelledby="reject-title">
        <h2 id="reject-title" className="subheading">
          Don’t want to pay?
        </h2>
        <RejectReasonField reason={reason} onChange={setReason} disabled={busy} />
        <button
          type="button"
          className="button button--danger button--block"
          disabled={busy}
          onClick={() => onDecide({ action: 'reject', reason })}
        >
          {pending === 'reject' ? 'Rejecting…' : 'Reject'}
        </button>
      </section>
    </>
  );
};
