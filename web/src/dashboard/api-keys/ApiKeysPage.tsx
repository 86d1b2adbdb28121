import { useEffect, useRef, useState } from 'react';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { type ApiKeyEntry, type CreatedApiKey, dashboardApi } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { FormProblem } from '../components/FormProblem.tsx';
import { formatDateTime } from '../components/format-date.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';
import { ApiBudgets } from './ApiBudgets.tsx';
import { CreateKeyForm } from './CreateKeyForm.tsx';
import { NewKeyNotice } from './NewKeyNotice.tsx';

/** `/dashboard/api-keys`: create keys (each shown once), see how they are used, revoke them. */
export const ApiKeysPage = () => {
  const { result, reload } = useDashboardQuery(dashboardQueries.apiKeys());
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  const onCreated = (key: CreatedApiKey) => {
    setCreated(key);
    reload();
  };

  return (
    <DashboardShell title="API keys">
      <Heading>API keys</Heading>
      <p className="muted">
        Your servers send a key in the <code>x-api-key</code> header. Keep keys out of browsers and apps.
      </p>
      {created ? (
        <NewKeyNotice created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateKeySection onCreated={onCreated} />
      )}
      <section aria-labelledby="keys-heading" className="section">
        <h2 id="keys-heading" className="subheading">
          Your keys
        </h2>
        {result.state === 'loading' ? <LoadingStatus label="Loading keys…" /> : null}
        {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
        {result.state === 'ready' ? <KeyTable keys={result.data} onRevoked={reload} /> : null}
      </section>
      <ApiBudgets />
    </DashboardShell>
  );
};

/**
 * The keys the session's mode makes (issue 34 item 9): on Live data a live key, which only an
 * organization approved for a real provider may hold (the server's rule; said here at once).
 */
const CreateKeySection = ({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) => {
  const { mode, organization } = useSession();
  const live = mode === 'live';
  const realProvider = organization.approvedProviders.some((code) => code !== 'mock');
  return (
    <section aria-labelledby="create-key-heading" className="section">
      <h2 id="create-key-heading" className="subheading">
        {live ? 'Create live API key' : 'Create API key'}
      </h2>
      {live && !realProvider ? (
        <p>
          Live keys need your organization approved for a real provider: the Mock bank takes test payments
          only. Ask the operator of this service to approve your organization (id{' '}
          <code>{organization.id}</code>, also in Settings) for one, such as UK Open Banking. Until then,
          switch to Test data to make test keys.
        </p>
      ) : (
        <>
          <p className="muted">
            {live
              ? 'A live key creates payments that move real money. To make a test key, switch to Test data.'
              : 'A test key’s payments never move money. To make a live key, switch to Live data.'}
          </p>
          <CreateKeyForm onCreated={onCreated} />
        </>
      )}
    </section>
  );
};

const PERMISSION_NAMES: Record<string, string> = { read: 'Read', write: 'Write' };
const STATE_TONES: Record<string, string> = { active: 'success', expired: 'progress', revoked: 'failure' };

const KeyTable = ({ keys, onRevoked }: { keys: ApiKeyEntry[]; onRevoked: () => void }) => {
  const [confirming, setConfirming] = useState<ApiKeyEntry | null>(null);
  if (keys.length === 0) return <p className="muted">No keys yet.</p>;
  return (
    <>
      <ScrollTable labelledBy="keys-heading">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Mode</th>
            <th scope="col">Permissions</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>
                <span className={`badge badge--${key.mode === 'live' ? 'success' : 'progress'}`}>
                  {key.mode === 'live' ? 'Live' : 'Test'}
                </span>
              </td>
              <td>
                {key.permissions.map((permission) => PERMISSION_NAMES[permission] ?? permission).join(', ')}
              </td>
              <td>{formatDateTime(key.createdAt)}</td>
              <td>{key.expiresAt ? formatDateTime(key.expiresAt) : 'Never'}</td>
              <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'Never'}</td>
              <td>
                <span className={`badge badge--${STATE_TONES[key.state] ?? 'progress'}`}>{key.state}</span>
              </td>
              <td>
                {key.state === 'revoked' ? null : (
                  <button
                    type="button"
                    className="button button--danger button--small"
                    aria-label={`Revoke ${key.name}`}
                    onClick={() => setConfirming(key)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      {confirming ? (
        <RevokeConfirm
          key={confirming.id}
          apiKey={confirming}
          onClose={(revoked) => {
            setConfirming(null);
            if (revoked) onRevoked();
          }}
        />
      ) : null}
    </>
  );
};

/** "Revoke" asks first: a revoked key cannot be brought back. */
const RevokeConfirm = ({ apiKey, onClose }: { apiKey: ApiKeyEntry; onClose: (revoked: boolean) => void }) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const { run, pending, error } = useDashboardAction(dashboardApi.revokeApiKey);
  useEffect(() => heading.current?.focus(), []);

  const revoke = async () => {
    if ((await run(apiKey.id)).ok) onClose(true);
  };

  return (
    <section className="confirm" aria-labelledby="revoke-heading">
      <h3 id="revoke-heading" className="confirm__title" tabIndex={-1} ref={heading}>
        Revoke “{apiKey.name}” ({apiKey.prefix}…)?
      </h3>
      <p>Requests with this key are refused from now on. This cannot be undone.</p>
      <FormProblem error={error} />
      <div className="actions">
        <button type="button" className="button button--danger" onClick={revoke} disabled={pending}>
          {pending ? 'Revoking…' : 'Revoke key'}
        </button>
        <button type="button" className="button" onClick={() => onClose(false)} disabled={pending}>
          Keep key
        </button>
      </div>
    </section>
  );
};
