import { type FormEvent, useState } from 'react';
import { Link, Navigate } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { dashboardApi } from '../api/dashboard-api.ts';
import { fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useSessionState } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { CredentialsFields } from './CredentialsFields.tsx';

/** `/dashboard/sign-up`: a new organization (Mock bank only, as the spec says) and its first user. */
export const SignUpPage = () => {
  const { current, signedIn } = useSessionState();
  // A new account lands on the quick start; someone already signed in, on the overview.
  const [landing, setLanding] = useState('/dashboard');
  const [businessName, setBusinessName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { run, pending, error } = useDashboardAction(dashboardApi.signUp, { signedOutForm: true });

  if (current.state === 'signed-in') return <Navigate to={landing} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run({ businessName, email, password });
    if (done.ok) {
      setLanding('/dashboard/quick-start');
      signedIn(done.value);
    }
  };

  return (
    <AccountShell title="Create account">
      <Heading>Create your account</Heading>
      <p className="muted">
        Start with the Mock bank: no credentials, no real money. Real banks are approved later.
      </p>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Business name"
          autoComplete="organization"
          value={businessName}
          onChange={(event) => setBusinessName(event.target.value)}
          error={fieldError(error, 'businessName')}
          required
        />
        <CredentialsFields
          email={email}
          password={password}
          onEmail={setEmail}
          onPassword={setPassword}
          passwordAutoComplete="new-password"
          passwordHint="At least 12 characters."
          error={error}
          pending={pending}
          submitLabel="Create account"
          pendingLabel="Creating account…"
        />
      </form>
      <p className="account-switch">
        Already have an account? <Link to="/dashboard/sign-in">Sign in</Link>
      </p>
    </AccountShell>
  );
};
