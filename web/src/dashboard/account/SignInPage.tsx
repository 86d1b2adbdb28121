import { type FormEvent, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { dashboardApi } from '../api/dashboard-api.ts';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useSessionState } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';
import { CredentialsFields } from './CredentialsFields.tsx';

const HERE = 'http://dashboard.invalid';

/**
 * Where to go after signing in. The `next` query comes back through the browser, so only a
 * dashboard path is taken (never another origin or a protocol-relative `//host`), judged as the
 * browser resolves it: `/dashboard/../pay/<token>` (or with backslashes) is a customer page.
 */
export const safeNext = (next: string | null): string => {
  let url: URL;
  try {
    url = new URL(next ?? '', HERE);
  } catch {
    return '/dashboard';
  }
  return next?.startsWith('/') && url.origin === HERE && /^\/dashboard(?:\/|$)/.test(url.pathname)
    ? `${url.pathname}${url.search}${url.hash}`
    : '/dashboard';
};

/** `/dashboard/sign-in`. */
export const SignInPage = () => {
  const { current, signedIn } = useSessionState();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string | null>(null);
  const { run, pending, error } = useDashboardAction(dashboardApi.signIn, { signedOutForm: true });
  const next = safeNext(params.get('next'));

  if (current.state === 'signed-in') return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run({ email, password });
    if (!done.ok) return;
    // Two-step verification on: the password was right, the code comes next.
    if ('twoStepRequired' in done.value) setChallenge(done.value.challenge);
    else signedIn(done.value);
  };

  if (challenge) {
    return (
      <AccountShell title="Sign in">
        <Heading>Two-step verification</Heading>
        <SignInCodeForm challenge={challenge} onRestart={() => setChallenge(null)} />
      </AccountShell>
    );
  }

  return (
    <AccountShell title="Sign in">
      <Heading>Sign in</Heading>
      {current.state === 'signed-out' && current.notice ? (
        <p className="inline-problem" role="status">
          {current.notice}
        </p>
      ) : null}
      <form onSubmit={submit} noValidate>
        <CredentialsFields
          email={email}
          password={password}
          onEmail={setEmail}
          onPassword={setPassword}
          passwordAutoComplete="current-password"
          error={error}
          pending={pending}
          submitLabel="Sign in"
          pendingLabel="Signing in…"
        />
      </form>
      <p className="account-switch">
        <Link to="/dashboard/forgot-password">Forgot password?</Link>
      </p>
      <p className="account-switch">
        New here? <Link to="/dashboard/sign-up">Create an account</Link>
      </p>
    </AccountShell>
  );
};

/** The sign-in's second step: the code from the authenticator app, or a recovery code. */
const SignInCodeForm = ({ challenge, onRestart }: { challenge: string; onRestart: () => void }) => {
  const { signedIn } = useSessionState();
  const [code, setCode] = useState('');
  const { run, pending, error } = useDashboardAction(accountApi.signInCode, { signedOutForm: true });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run({ challenge, code });
    if (done.ok) signedIn(done.value);
  };
  return (
    <form onSubmit={submit} noValidate>
      <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      <TextField
        label="Code"
        inputMode="text"
        autoComplete="one-time-code"
        autoFocus
        value={code}
        onChange={(event) => setCode(event.target.value)}
        error={fieldError(error, 'code')}
      />
      {error ? <FormProblem error={error} /> : null}
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Verifying…' : 'Verify'}
      </button>
      <p className="account-switch">
        <button type="button" className="button" onClick={onRestart}>
          Start again
        </button>
      </p>
    </form>
  );
};
