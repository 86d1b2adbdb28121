import { Link, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatDateTime } from '../components/format-date.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardLoad } from '../session/use-dashboard-call.ts';
import { logsApi, type AuditLogPage as Page } from './logs-api.ts';

const ACTIONS: Record<string, string> = {
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'session.signed_in': 'Signed in',
  'session.signed_out': 'Signed out',
  'session.sign_in_failed': 'Sign-in failed',
  'session.signed_out_everywhere': 'Signed out everywhere',
  'session.identity_confirmed': 'Confirmed it was them',
  'session.mode_changed': 'Switched test/live data',
  'account.password_changed': 'Password changed',
  'account.password_reset': 'Password reset',
  'account.email_changed': 'Email changed',
  'team.invited': 'Member invited',
  'team.invitation_withdrawn': 'Invitation withdrawn',
  'team.joined': 'Invitation accepted',
  'team.role_changed': 'Role changed',
  'team.member_removed': 'Member removed',
  'settings.changed': 'Settings changed',
  'payment.cancelled': 'Payment cancelled',
  'payment.approved': 'Payment approved',
  'payment.rejected': 'Payment rejected',
  'payment.clock_advanced': 'Test clock advanced',
  'payment.link_sent': 'New customer link',
  'operator.command': 'Operator command',
};
const ACTORS: Record<string, string> = { user: 'User', api_key: 'API key', operator: 'Operator' };

/** `/dashboard/logs/audit`: who did what in the organization, newest first. Read-only. */
export const AuditLogPage = () => {
  const [params] = useSearchParams();
  const before = params.get('before') ?? undefined;
  const valid = before && /^[1-9][0-9]{0,18}$/.test(before) ? before : undefined;
  const { result, reload } = useDashboardLoad(
    (signal) => logsApi.audit(valid, signal),
    `audit-${valid ?? ''}`,
    {
      keepPrevious: true,
    },
  );
  return (
    <DashboardShell title="Audit log">
      <Heading>Audit log</Heading>
      <p className="muted">Who did what in your organization. Entries cannot be changed or deleted.</p>
      {result.state === 'loading' ? <LoadingStatus label="Loading the audit log…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <div className={result.stale ? 'stale' : undefined}>
          <AuditTable page={result.data} />
          {result.data.nextBefore ? (
            <p>
              <Link to={`?before=${result.data.nextBefore}`}>Older entries</Link>
            </p>
          ) : null}
        </div>
      ) : null}
    </DashboardShell>
  );
};

const AuditTable = ({ page }: { page: Page }) => {
  if (page.entries.length === 0) return <p className="muted">Nothing recorded yet.</p>;
  return (
    <ScrollTable label="Audit entries">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Action</th>
          <th scope="col">By</th>
          <th scope="col">On</th>
        </tr>
      </thead>
      <tbody>
        {page.entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDateTime(entry.at)}</td>
            <th scope="row">{ACTIONS[entry.action] ?? entry.action}</th>
            <td className="table__wrap">
              {ACTORS[entry.actorType] ?? entry.actorType}: {entry.actor}
            </td>
            <td>{entry.target ? <code>{entry.target}</code> : ''}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
};
