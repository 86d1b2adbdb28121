import { type FormEvent, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { dashboardApi } from '../api/dashboard-api.ts';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useSessionState } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
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
  const { run, pending, error } = useDashboardAction(dashboardApi.signIn, { signedOutForm: true });
  const next = safeNext(params.get('next'));

  if (current.state === 'signed-in') return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run({ email, password });
    if (done.ok) signedIn(done.value);
  };

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
