import { useId } from 'react';
import type { ChosenScenario, MockBankScenario, ScenarioPreset } from '../../api/page-types.ts';
import { SCENARIO_PRESETS } from '../../format/labels.ts';

/** What the panel holds: a preset, or custom seconds as typed (validated on approve). */
export type ScenarioChoice = { kind: 'preset'; preset: ScenarioPreset } | { kind: 'custom'; seconds: string };

export const MIN_SECONDS = 1;
export const MAX_SECONDS = 3600;

export const initialChoice = (scenario: MockBankScenario): ScenarioChoice =>
  scenario.completeAfterSeconds !== null
    ? { kind: 'custom', seconds: String(scenario.completeAfterSeconds) }
    : { kind: 'preset', preset: scenario.preset };

/** The scenario to send, or null when the custom seconds are not a whole number from 1 to 3600. */
export const toScenario = (choice: ScenarioChoice): ChosenScenario | null => {
  if (choice.kind === 'preset') return { preset: choice.preset };
  const text = choice.seconds.trim();
  if (!/^\d{1,4}$/.test(text)) return null;
  const seconds = Number(text);
  return seconds >= MIN_SECONDS && seconds <= MAX_SECONDS ? { completeAfterSeconds: seconds } : null;
};

interface ScenarioPanelProps {
  choice: ScenarioChoice;
  onChange: (choice: ScenarioChoice) => void;
  invalid: boolean;
  disabled: boolean;
}

/** Practice controls: how long the bank takes to complete the payment after approval. */
export const ScenarioPanel = ({ choice, onChange, invalid, disabled }: ScenarioPanelProps) => {
  const ids = useId();
  const customSeconds = choice.kind === 'custom' ? choice.seconds : '';
  return (
    <fieldset className="panel" disabled={disabled}>
      <legend>Practice scenario</legend>
      <p className="panel__hint">How long the bank takes to complete the payment after you approve.</p>
      <div className="choices">
        {SCENARIO_PRESETS.map(({ preset, label, timing }) => (
          <label key={preset} className="choice">
            <input
              type="radio"
              name={`${ids}-scenario`}
              value={preset}
              checked={choice.kind === 'preset' && choice.preset === preset}
              onChange={() => onChange({ kind: 'preset', preset })}
            />
            <span>
              {label} <span className="muted">· {timing}</span>
            </span>
          </label>
        ))}
        <label className="choice">
          <input
            type="radio"
            name={`${ids}-scenario`}
            value="custom"
            checked={choice.kind === 'custom'}
            onChange={() => onChange({ kind: 'custom', seconds: customSeconds || '30' })}
          />
          <span>Custom</span>
        </label>
      </div>
      {choice.kind === 'custom' ? (
        <div className="field field--inline">
          <label htmlFor={`${ids}-seconds`}>Complete after (seconds, 1 to 3600)</label>
          <input
            id={`${ids}-seconds`}
            type="number"
            inputMode="numeric"
            min={MIN_SECONDS}
            max={MAX_SECONDS}
            step={1}
            value={choice.seconds}
            aria-invalid={invalid}
            aria-describedby={invalid ? `${ids}-seconds-error` : undefined}
            onChange={(event) => onChange({ kind: 'custom', seconds: event.target.value })}
          />
          {invalid ? (
            <p id={`${ids}-seconds-error`} className="field__error">
              Enter a whole number of seconds from 1 to 3600.
            </p>
          ) : null}
        </div>
      ) : null}
    </fieldset>
  );
};
