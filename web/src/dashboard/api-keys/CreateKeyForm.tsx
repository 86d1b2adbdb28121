import { type FormEvent, useId, useState } from 'react';
import { SensitiveActionProblem } from '../account/ConfirmIdentity.tsx';
import { type CreatedApiKey, dashboardApi } from '../api/dashboard-api.ts';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';

type Permission = 'read' | 'write';

/** A `datetime-local` value (the merchant's own clock) as the instant the server stores. */
export const expiryInstant = (local: string): string | undefined =>
  local ? new Date(local).toISOString() : undefined;

/** "Create API key": a name, Read and/or Write, and an optional expiry. */
export const CreateKeyForm = ({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) => {
  const ids = useId();
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Record<Permission, boolean>>({ read: true, write: true });
  const [expiresAt, setExpiresAt] = useState('');
  const { run, pending, error, clearError } = useDashboardAction(dashboardApi.createApiKey);
  const [confirmed, setConfirmed] = useState('');
  // A key outlives every session: on a session signed in over 15 minutes ago the server asks
  // "Confirm it's you" first (shown below the form, a form of its own).
  const reauthenticate = error?.kind === 'REAUTHENTICATION_REQUIRED';
  const permissionsError = fieldError(error, 'permissions');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setConfirmed('');
    const chosen = (Object.keys(permissions) as Permission[]).filter((permission) => permissions[permission]);
    const expiry = expiryInstant(expiresAt);
    const created = await run({ name, permissions: chosen, ...(expiry ? { expiresAt: expiry } : {}) });
    if (created.ok) {
      setName('');
      setExpiresAt('');
      onCreated(created.value);
    }
  };

  const toggle = (permission: Permission) => (event: { target: { checked: boolean } }) =>
    setPermissions((previous) => ({ ...previous, [permission]: event.target.checked }));

  return (
    <>
      <form onSubmit={submit} noValidate className="create-key">
        <TextField
          label="Name"
          hint="Where the key is used, e.g. “Checkout server”."
          value={name}
          maxLength={100}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(error, 'name')}
          required
        />
        <fieldset
          className="panel"
          aria-describedby={permissionsError ? `${ids}-permissions-error` : undefined}
          aria-invalid={permissionsError ? true : undefined}
        >
          <legend>Permissions</legend>
          <label className="choice">
            <input type="checkbox" checked={permissions.read} onChange={toggle('read')} />
            <span>
              Read <span className="muted">· list and read payments, banks</span>
            </span>
          </label>
          <label className="choice">
            <input type="checkbox" checked={permissions.write} onChange={toggle('write')} />
            <span>
              Write <span className="muted">· create and cancel payments</span>
            </span>
          </label>
          {permissionsError ? (
            <p id={`${ids}-permissions-error`} className="field__error">
              {permissionsError}
            </p>
          ) : null}
        </fieldset>
        <TextField
          label="Expires (optional)"
          type="datetime-local"
          hint="Leave empty for a key that does not expire."
          value={expiresAt}
          onChange={(event) => setExpiresAt(event.target.value)}
          error={fieldError(error, 'expiresAt')}
        />
        <FormProblem error={reauthenticate ? null : error} fields={['name', 'permissions', 'expiresAt']} />
        <p role="status">{confirmed}</p>
        <button type="submit" className="button button--primary" disabled={pending}>
          {pending ? 'Creating…' : 'Create API key'}
        </button>
      </form>
      {reauthenticate ? (
        <SensitiveActionProblem
          error={error}
          onConfirmed={() => {
            clearError();
            setConfirmed('Confirmed: press Create API key again.');
          }}
        />
      ) : null}
    </>
  );
};
