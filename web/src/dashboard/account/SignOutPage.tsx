import { useState } from 'react';
import { Link } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useSessionState } from '../session/session-context.tsx';

/**
 * `/dashboard/sign-out`: asks before signing out, so a link from another site cannot end a
 * merchant's session (the header's "Sign out" button does it at once).
 */
export const SignOutPage = () => {
  const { current, signOut } = useSessionState();
  const [pending, setPending] = useState(false);

  if (current.state === 'checking') return null;
  if (current.state !== 'signed-in') {
    return (
      <AccountShell title="Signed out">
        <Heading focusOnShow={pending}>You are signed out</Heading>
        <p>
          <Link to="/dashboard/sign-in">Sign in again</Link>
        </p>
      </AccountShell>
    );
  }
  return (
    <AccountShell title="Sign out">
      <Heading>Sign out of {current.session.organization.name}?</Heading>
      <p className="muted">Signed in as {current.session.user.email}.</p>
      <div className="actions">
        <button
          type="button"
          className="button button--primary"
          disabled={pending}
          onClick={() => {
            setPending(true);
            signOut().catch(() => undefined);
          }}
        >
          Sign out
        </button>
        <Link to="/dashboard" className="button">
          Stay signed in
        </Link>
      </div>
    </AccountShell>
  );
};
