import { type FormEvent, useId, useState } from 'react';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { AccountSecurity } from '../account/AccountSecurity.tsx';
import { TwoStepSettings } from '../account/TwoStepSettings.tsx';
import { dashboardApi } from '../api/dashboard-api.ts';
import { FormProblem, fieldLabel } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { BrandSettings } from './BrandSettings.tsx';
import { OrganizationId } from './OrganizationId.tsx';
import { SavedPayees } from './SavedPayees.tsx';

/** `/dashboard/settings`: the organization's allowed return origins. */
export const SettingsPage = () => {
  const { result, reload } = useDashboardLoad((signal) => dashboardApi.returnOrigins(signal), 'settings');
  return (
    <DashboardShell title="Settings">
      <Heading>Settings</Heading>
      <OrganizationId />
      <section aria-labelledby="return-origins-heading" className="section">
        <h2 id="return-origins-heading" className="subheading">
          Allowed return origins
        </h2>
        <p className="muted">
          Where your customers may be sent back to after paying. With a list, a payment whose{' '}
          <code>redirectUrl</code> is on any other origin is refused with <code>VALIDATION_FAILED</code>; with
          none, any origin is allowed.
        </p>
        {result.state === 'loading' ? <LoadingStatus label="Loading settings…" /> : null}
        {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
        {result.state === 'ready' ? <ReturnOriginsForm stored={result.data} /> : null}
      </section>
      <SavedPayees />
      <BrandSettings />
      <AccountSecurity />
      <TwoStepSettings />
    </DashboardShell>
  );
};

/** One origin a line; saving replaces the whole list, an empty box clears it. */
const ReturnOriginsForm = ({ stored }: { stored: string[] }) => {
  const id = useId();
  const [saved, setSaved] = useState(stored);
  const [text, setText] = useState(stored.join('\n'));
  const [justSaved, setJustSaved] = useState(false);
  const { run, pending, error } = useDashboardAction(dashboardApi.setReturnOrigins);
  const lines = (error?.details ?? [])
    .filter((detail) => detail.field.startsWith('origins'))
    .map((detail) => `${fieldLabel(detail.field)} ${detail.message}`);
  const fieldError = lines.length > 0 ? lines.join(' ') : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setJustSaved(false);
    const origins = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const answer = await run(origins);
    if (answer.ok) {
      setSaved(answer.value);
      setText(answer.value.join('\n'));
      setJustSaved(true);
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <p>
        {saved.length === 0
          ? 'Now: any origin is allowed.'
          : `Now: ${saved.length === 1 ? '1 origin' : `${saved.length} origins`}, ${saved.join(', ')}.`}
      </p>
      <div className="field">
        <label htmlFor={id}>Origins, one a line</label>
        <textarea
          id={id}
          className="textarea"
          rows={5}
          value={text}
          spellCheck={false}
          autoCapitalize="off"
          placeholder="https://shop.example"
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={`${id}-hint${fieldError ? ` ${id}-error` : ''}`}
          onChange={(event) => {
            setText(event.target.value);
            setJustSaved(false);
          }}
        />
        <p id={`${id}-hint`} className="field__hint">
          Scheme, host and port only, e.g. <code>https://shop.example</code> or{' '}
          <code>http://localhost:8080</code>. Leave empty to allow any origin.
        </p>
        {fieldError ? (
          <p id={`${id}-error`} className="field__error">
            {fieldError}
          </p>
        ) : null}
      </div>
      <FormProblem error={error} />
      <p role="status" className={justSaved ? 'field__hint' : 'visually-hidden'}>
        {justSaved ? 'Saved.' : ''}
      </p>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Saving…' : 'Save return origins'}
      </button>
    </form>
  );
};
