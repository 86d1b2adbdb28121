import { type FormEvent, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { tokenFromHash } from '../account/account-api.ts';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useSessionState } from '../session/session-context.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { roleLabel, teamApi } from './team-api.ts';

/**
 * `/dashboard/accept-invitation#token=...`: what is offered, then a password; accepting signs the
 * new member in. The token stays in the fragment (no server log or Referer sees it).
 */
export const AcceptInvitationPage = () => {
  const { hash } = useLocation();
  const [token] = useState(() => tokenFromHash(hash));
  const { result, reload } = useDashboardLoad((signal) => teamApi.invitation(token, signal), 'invitation');
  return (
    <AccountShell title="Join your team">
      <Heading>Join your team</Heading>
      {result.state === 'loading' ? <LoadingStatus label="Loading the invitation…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <AcceptForm token={token} invitation={result.data} /> : null}
    </AccountShell>
  );
};

const AcceptForm = ({
  token,
  invitation,
}: {
  token: string;
  invitation: Awaited<ReturnType<typeof teamApi.invitation>>;
}) => {
  const { signedIn } = useSessionState();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const { run, pending, error } = useDashboardAction(teamApi.acceptInvitation, { signedOutForm: true });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await run({ token, password });
    if (done.ok) {
      signedIn(done.value);
      navigate('/dashboard');
    }
  };
  return (
    <form onSubmit={submit} noValidate>
      <p>
        {invitation.invitedBy} invited {invitation.email} to join {invitation.organizationName} as{' '}
        {roleLabel(invitation.role)}.
      </p>
      <TextField
        label="Choose a password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        hint="At least 12 characters and hard to guess."
        error={fieldError(error, 'password')}
      />
      {error ? <FormProblem error={error} /> : null}
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Joining…' : 'Accept invitation'}
      </button>
    </form>
  );
};
