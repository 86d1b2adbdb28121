import { type FormEvent, useState } from 'react';
import type { DashboardError } from '../api/dashboard-error.ts';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';

/**
 * A sensitive action's failure (team changes, a new API key), or, when the server asks for it
 * (REAUTHENTICATION_REQUIRED: the session signed in over 15 minutes ago), "Confirm it's you":
 * the password or a two-step code, after which the action can be done again (issue 31 item 6).
 * A form of its own: render it outside the action's form.
 */
export const SensitiveActionProblem = ({
  error,
  onConfirmed,
}: {
  error: DashboardError | null;
  onConfirmed: () => void;
}) =>
  error?.kind === 'REAUTHENTICATION_REQUIRED' ? (
    <ConfirmIdentity message={error.message} onConfirmed={onConfirmed} />
  ) : (
    <FormProblem error={error} />
  );

const ConfirmIdentity = ({ message, onConfirmed }: { message: string; onConfirmed: () => void }) => {
  const [secret, setSecret] = useState('');
  const [withCode, setWithCode] = useState(false);
  const { run, pending, error } = useDashboardAction(accountApi.confirmIdentity);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run(withCode ? { code: secret } : { password: secret });
    if (done.ok) {
      setSecret('');
      onConfirmed();
    }
  };
  return (
    <form className="inline-problem" aria-labelledby="confirm-identity-heading" onSubmit={submit} noValidate>
      <h3 id="confirm-identity-heading">Confirm it’s you</h3>
      <p role="alert">{message}</p>
      <TextField
        label={withCode ? 'Two-step code' : 'Password'}
        type={withCode ? 'text' : 'password'}
        autoComplete={withCode ? 'one-time-code' : 'current-password'}
        value={secret}
        onChange={(event) => setSecret(event.target.value)}
        error={fieldError(error, withCode ? 'code' : 'password')}
      />
      {error ? <FormProblem error={error} fields={['password', 'code']} /> : null}
      <p>
        <button type="submit" className="button button--primary" disabled={pending || secret === ''}>
          {pending ? 'Checking…' : 'Confirm'}
        </button>{' '}
        <button type="button" className="button" onClick={() => setWithCode(!withCode)}>
          {withCode ? 'Use my password instead' : 'Use a two-step code instead'}
        </button>
      </p>
    </form>
  );
};
