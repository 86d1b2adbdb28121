import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { useSession, useSessionState } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';

/**
 * Until the address is confirmed: test mode works, live mode and team invitations wait. Shown
 * on every signed-in page (DashboardShell).
 */
export const UnverifiedEmailBanner = () => {
  const { current } = useSessionState();
  const [sent, setSent] = useState(false);
  const { run, pending, error } = useDashboardAction(accountApi.resendVerification);
  if (current.state !== 'signed-in' || current.session.user.emailVerified) return null;
  return (
    <div className="inline-problem" role="status">
      <p>
        Confirm your email address ({current.session.user.email}) with the link we mailed you: test mode works
        already, live mode and team invitations wait for it.{' '}
        {sent ? (
          'A new link is on its way.'
        ) : (
          <button
            type="button"
            className="button"
            disabled={pending}
            onClick={async () => {
              if ((await run()).ok) setSent(true);
            }}
          >
            Send the link again
          </button>
        )}
      </p>
      {error ? <FormProblem error={error} /> : null}
    </div>
  );
};

/** Settings: change password, change email (both after the current password), sign out everywhere. */
export const AccountSecurity = () => (
  <section aria-labelledby="account-security-heading" className="section">
    <h2 id="account-security-heading" className="subheading">
      Your account
    </h2>
    <ChangePasswordForm />
    <ChangeEmailForm />
    <SignOutEverywhere />
  </section>
);

const ChangePasswordForm = () => {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [notice, setNotice] = useState('');
  const { run, pending, error } = useDashboardAction(accountApi.changePassword);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    const done = await run({ currentPassword, newPassword });
    if (done.ok) {
      setCurrentPassword('');
      setNewPassword('');
      setNotice(`Password changed. Other sessions signed out: ${done.value.otherSessionsEnded}.`);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="change-password-heading">
      <h3 id="change-password-heading">Change password</h3>
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={currentPassword}
        onChange={(event) => setCurrentPassword(event.target.value)}
        error={fieldError(error, 'currentPassword')}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        value={newPassword}
        onChange={(event) => setNewPassword(event.target.value)}
        hint="At least 12 characters and hard to guess."
        error={fieldError(error, 'newPassword')}
      />
      {error ? <FormProblem error={error} /> : null}
      <p role="status">{notice}</p>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Saving…' : 'Change password'}
      </button>
    </form>
  );
};

const ChangeEmailForm = () => {
  const session = useSession();
  const { signedIn } = useSessionState();
  const [password, setPassword] = useState('');
  const [newEmail, setNewEmail] = useState('');
  const [notice, setNotice] = useState('');
  const { run, pending, error } = useDashboardAction(accountApi.changeEmail);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    const done = await run({ password, newEmail });
    if (done.ok) {
      setPassword('');
      setNewEmail('');
      signedIn({ ...session, user: { ...session.user, email: done.value.email, emailVerified: false } });
      setNotice(`You now sign in as ${done.value.email}. We mailed it a link to confirm it.`);
    }
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="change-email-heading">
      <h3 id="change-email-heading">Change email</h3>
      <p className="muted">Now: {session.user.email}. The old address is told of the change.</p>
      <TextField
        label="New email"
        type="email"
        autoComplete="email"
        value={newEmail}
        onChange={(event) => setNewEmail(event.target.value)}
        error={fieldError(error, 'newEmail')}
      />
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        error={fieldError(error, 'password')}
      />
      {error ? <FormProblem error={error} /> : null}
      <p role="status">{notice}</p>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Saving…' : 'Change email'}
      </button>
    </form>
  );
};

const SignOutEverywhere = () => {
  const [notice, setNotice] = useState('');
  const navigate = useNavigate();
  const { run, pending, error } = useDashboardAction(accountApi.signOutEverywhere);
  return (
    <div>
      <h3>Sessions</h3>
      <p className="muted">Ends every other session of your account at once (this one stays signed in).</p>
      {error ? <FormProblem error={error} /> : null}
      <p role="status">{notice}</p>
      <button
        type="button"
        className="button"
        disabled={pending}
        onClick={async () => {
          const done = await run();
          if (done.ok)
            setNotice(`Signed out everywhere else: ${done.value.otherSessionsEnded} session(s) ended.`);
          else navigate('/dashboard/settings');
        }}
      >
        Sign out everywhere
      </button>
    </div>
  );
};
