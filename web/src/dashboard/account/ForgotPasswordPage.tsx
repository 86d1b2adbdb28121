import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';

/** `/dashboard/forgot-password`: one answer for every address (the server never says which exist). */
export const ForgotPasswordPage = () => {
  const [email, setEmail] = useState('');
  const [done, setDone] = useState(false);
  const { run, pending, error } = useDashboardAction(accountApi.requestPasswordReset, {
    signedOutForm: true,
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if ((await run(email)).ok) setDone(true);
  };

  return (
    <AccountShell title="Forgot password">
      <Heading>Forgot password?</Heading>
      {done ? (
        <p role="status">
          If an account uses {email}, we sent it a link to set a new password. It works once, for 30 minutes.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={fieldError(error, 'email')}
            required
          />
          <FormProblem error={error} />
          <button type="submit" className="button button--primary" disabled={pending}>
            {pending ? 'Sending…' : 'Send reset link'}
          </button>
        </form>
      )}
      <p className="account-switch">
        <Link to="/dashboard/sign-in">Back to sign in</Link>
      </p>
    </AccountShell>
  );
};
