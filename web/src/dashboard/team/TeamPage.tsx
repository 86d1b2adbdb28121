import { type FormEvent, useId, useState } from 'react';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { SensitiveActionProblem } from '../account/ConfirmIdentity.tsx';
import { fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { ROLES, roleLabel, type TeamRole, teamApi } from './team-api.ts';

type Team = Awaited<ReturnType<typeof teamApi.list>>;

/**
 * `/dashboard/team`: the members and open invitations; an Owner invites, changes roles and
 * removes members. The controls follow the role, but the server decides (accounts/roles.ts).
 */
export const TeamPage = () => {
  const session = useSession();
  const { result, reload } = useDashboardLoad((signal) => teamApi.list(signal), 'team');
  const owner = session.user.role === 'owner';
  return (
    <DashboardShell title="Team">
      <Heading>Team</Heading>
      <p className="muted">
        Your role: {roleLabel(session.user.role)}.{' '}
        {ROLES.map((role) => `${role.label}: ${role.can}`).join('. ')}.
      </p>
      {result.state === 'loading' ? <LoadingStatus label="Loading the team…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <Members team={result.data} owner={owner} selfId={session.user.id} onChange={reload} />
      ) : null}
      {owner ? <InviteForm onInvited={reload} /> : null}
    </DashboardShell>
  );
};

const Members = ({
  team,
  owner,
  selfId,
  onChange,
}: {
  team: Team;
  owner: boolean;
  selfId: string;
  onChange: () => void;
}) => {
  const setRole = useDashboardAction(teamApi.setRole);
  const remove = useDashboardAction(teamApi.remove);
  const withdraw = useDashboardAction(teamApi.withdrawInvitation);
  const [confirmed, setConfirmed] = useState('');
  const confirmedThen = (clear: () => void) => () => {
    clear();
    setConfirmed('Confirmed: do the change again.');
  };
  return (
    <section aria-labelledby="members-heading" className="section">
      <h2 id="members-heading" className="subheading">
        Members
      </h2>
      {setRole.error ? (
        <SensitiveActionProblem error={setRole.error} onConfirmed={confirmedThen(setRole.clearError)} />
      ) : null}
      {remove.error ? (
        <SensitiveActionProblem error={remove.error} onConfirmed={confirmedThen(remove.clearError)} />
      ) : null}
      <p role="status">{confirmed}</p>
      <ul className="team-list" aria-label="Members">
        {team.members.map((member) => (
          <li key={member.id}>
            <p>
              {member.email}
              {member.id === selfId ? ' (you)' : ''}: {roleLabel(member.role)}
              {member.twoStep ? ', two-step on' : ''}
            </p>
            {owner ? (
              <p>
                <label>
                  Role of {member.email}{' '}
                  <select
                    value={member.role}
                    disabled={setRole.pending}
                    onChange={async (event) => {
                      const role = event.target.value as TeamRole;
                      setConfirmed('');
                      if ((await setRole.run({ userId: member.id, role })).ok) onChange();
                    }}
                  >
                    {ROLES.map((role) => (
                      <option key={role.value} value={role.value}>
                        {role.label}
                      </option>
                    ))}
                  </select>
                </label>{' '}
                {member.id === selfId ? null : (
                  <button
                    type="button"
                    className="button"
                    disabled={remove.pending}
                    aria-label={`Remove ${member.email}`}
                    onClick={async () => {
                      setConfirmed('');
                      if ((await remove.run(member.id)).ok) onChange();
                    }}
                  >
                    Remove
                  </button>
                )}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      {team.invitations.length > 0 ? (
        <>
          <h3>Invitations waiting</h3>
          {withdraw.error ? (
            <SensitiveActionProblem error={withdraw.error} onConfirmed={confirmedThen(withdraw.clearError)} />
          ) : null}
          <ul aria-label="Invitations waiting">
            {team.invitations.map((invitation) => (
              <li key={invitation.email}>
                {invitation.email}: {roleLabel(invitation.role)}, until{' '}
                {new Date(invitation.expiresAt).toLocaleDateString('en-GB')}
                {owner ? (
                  <>
                    {' '}
                    <button
                      type="button"
                      className="button"
                      disabled={withdraw.pending}
                      aria-label={`Withdraw the invitation to ${invitation.email}`}
                      onClick={async () => {
                        setConfirmed('');
                        if ((await withdraw.run(invitation.email)).ok) onChange();
                      }}
                    >
                      Withdraw
                    </button>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
};

const InviteForm = ({ onInvited }: { onInvited: () => void }) => {
  const roleId = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TeamRole>('developer');
  const [notice, setNotice] = useState('');
  const { run, pending, error, clearError } = useDashboardAction(teamApi.invite);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    const done = await run({ email, role });
    if (done.ok) {
      setNotice(
        `Invitation sent to ${done.value.email} (${roleLabel(done.value.role)}); the link works for 7 days.`,
      );
      setEmail('');
      onInvited();
    }
  };
  return (
    <section aria-labelledby="invite-heading" className="section">
      <h2 id="invite-heading" className="subheading">
        Invite
      </h2>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fieldError(error, 'email')}
        />
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} value={role} onChange={(event) => setRole(event.target.value as TeamRole)}>
            {ROLES.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label} ({entry.can})
              </option>
            ))}
          </select>
        </div>
        <p role="status">{notice}</p>
        <button type="submit" className="button button--primary" disabled={pending}>
          {pending ? 'Sending…' : 'Invite'}
        </button>
      </form>
      {/* Outside the form: "Confirm it's you" is a form of its own. */}
      {error ? (
        <SensitiveActionProblem
          error={error}
          onConfirmed={() => {
            clearError();
            setNotice('Confirmed: press Invite again.');
          }}
        />
      ) : null}
    </section>
  );
};
