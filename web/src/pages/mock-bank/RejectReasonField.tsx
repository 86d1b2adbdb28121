import { useId } from 'react';
import type { RejectReason } from '../../api/page-types.ts';
import { REJECT_REASONS } from '../../format/labels.ts';

interface RejectReasonFieldProps {
  reason: RejectReason;
  onChange: (reason: RejectReason) => void;
  disabled: boolean;
}

/** Which ISO 20022 reason the bank gives when the customer rejects. */
export const RejectReasonField = ({ reason, onChange, disabled }: RejectReasonFieldProps) => {
  const ids = useId();
  const hint = REJECT_REASONS.find(({ code }) => code === reason)?.hint;
  // Full ISO name in the list; code and plain words below it, so the list fits a phone.
  return (
    <div className="field">
      <label htmlFor={`${ids}-reason`}>Reason for rejecting</label>
      <select
        id={`${ids}-reason`}
        value={reason}
        disabled={disabled}
        aria-describedby={`${ids}-hint`}
        onChange={(event) => onChange(event.target.value as RejectReason)}
      >
        {REJECT_REASONS.map(({ code, name }) => (
          <option key={code} value={code}>
            {name}
          </option>
        ))}
      </select>
      <p id={`${ids}-hint`} className="field__hint">
        {reason}: {hint}
      </p>
    </div>
  );
};
