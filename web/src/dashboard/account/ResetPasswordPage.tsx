import { type FormEvent, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi, tokenFromHash } from './account-api.ts';

/** `/dashboard/reset-password#token=...`: the mailed link's form. */
export const ResetPasswordPage = () => {
  const { hash } = useLocation();
  const [token] = useState(() => tokenFromHash(hash));
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const { run, pending, error } = useDashboardAction(accountApi.resetPassword, { signedOutForm: true });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if ((await run({ token, password })).ok) setDone(true);
  };

  return (
    <AccountShell title="Set a new password">
      <Heading>Set a new password</Heading>
      {done ? (
        <p role="status">
          Your password is set and every session was signed out. <Link to="/dashboard/sign-in">Sign in</Link>{' '}
          with the new password.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <TextField
            label="New password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            hint="At least 12 characters and hard to guess: a few unrelated words work well."
            error={fieldError(error, 'password')}
            required
          />
          <FormProblem error={error} />
          <button type="submit" className="button button--primary" disabled={pending}>
            {pending ? 'Saving…' : 'Set new password'}
          </button>
        </form>
      )}
      {error && (error.kind === 'LINK_INVALID' || error.kind === 'LINK_EXPIRED') ? (
        <p className="account-switch">
          <Link to="/dashboard/forgot-password">Ask for a new link</Link>
        </p>
      ) : null}
    </AccountShell>
  );
};
