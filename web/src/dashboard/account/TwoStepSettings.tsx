import { type FormEvent, useEffect, useState } from 'react';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { qrCodeDataUrl } from '../payments/qr-code.ts';
import { useSession } from '../session/session-context.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';

type Status = Awaited<ReturnType<typeof accountApi.twoStep>>;
type Setup = Awaited<ReturnType<typeof accountApi.beginTwoStep>>;

/**
 * Settings, "Two-step verification": set it up (QR code and setup key, then a code from the app),
 * the recovery codes shown once, and the organization's rule that every member uses it.
 */
export const TwoStepSettings = () => {
  const { result, reload } = useDashboardLoad((signal) => accountApi.twoStep(signal), 'two-step');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  return (
    <section aria-labelledby="two-step-heading" className="section">
      <h2 id="two-step-heading" className="subheading">
        Two-step verification
      </h2>
      <p className="muted">
        After your password, sign-in asks for a code from an authenticator app on your phone, so a stolen
        password alone opens nothing.
      </p>
      {result.state === 'loading' ? <LoadingStatus label="Loading two-step verification…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {recoveryCodes ? <RecoveryCodes codes={recoveryCodes} /> : null}
      {result.state === 'ready' && !result.data.enabled ? (
        <>
          {result.data.requiredByOrganization ? (
            <p className="inline-problem" role="status">
              Your organization requires two-step verification: set it up to use the dashboard.
            </p>
          ) : null}
          <SetUp
            onEnabled={(codes) => {
              setRecoveryCodes(codes);
              reload();
            }}
          />
        </>
      ) : null}
      {result.state === 'ready' && result.data.enabled ? (
        <Enabled status={result.data} onChange={reload} />
      ) : null}
    </section>
  );
};

const SetUp = ({ onEnabled }: { onEnabled: (codes: string[]) => void }) => {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const begin = useDashboardAction(accountApi.beginTwoStep);
  const confirm = useDashboardAction(accountApi.confirmTwoStep);
  useEffect(() => {
    if (!setup) return;
    let live = true;
    void qrCodeDataUrl(setup.otpauthUri).then((url) => {
      if (live) setQr(url);
    });
    return () => {
      live = false;
    };
  }, [setup]);

  if (!setup) {
    return (
      <div>
        {begin.error ? <FormProblem error={begin.error} /> : null}
        <button
          type="button"
          className="button button--primary"
          disabled={begin.pending}
          onClick={async () => {
            const done = await begin.run();
            if (done.ok) setSetup(done.value);
          }}
        >
          Set up
        </button>
      </div>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const done = await confirm.run(code);
    if (done.ok) onEnabled(done.value.recoveryCodes);
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="two-step-setup-heading">
      <h3 id="two-step-setup-heading">Scan the QR code with your authenticator app</h3>
      {qr ? <img src={qr} alt="QR code for your authenticator app" width={192} height={192} /> : null}
      <p>Or type the setup key into the app:</p>
      <dl className="setup-key">
        <dt>Setup key</dt>
        <dd>
          <code data-testid="setup-key">{setup.setupKey}</code>
        </dd>
      </dl>
      <TextField
        label="Code"
        inputMode="numeric"
        autoComplete="one-time-code"
        value={code}
        onChange={(event) => setCode(event.target.value)}
        hint="The 6-digit code the app shows now."
        error={fieldError(confirm.error, 'code')}
      />
      {confirm.error ? <FormProblem error={confirm.error} /> : null}
      <button type="submit" className="button button--primary" disabled={confirm.pending}>
        {confirm.pending ? 'Verifying…' : 'Verify'}
      </button>
    </form>
  );
};

const RecoveryCodes = ({ codes }: { codes: string[] }) => (
  <div role="status" aria-labelledby="recovery-codes-heading">
    <h3 id="recovery-codes-heading">Recovery codes</h3>
    <p>
      Two-step verification is on. Keep these codes somewhere safe: each signs you in once without your phone.
      They are shown only now.
    </p>
    <ul className="recovery-codes" aria-label="Recovery codes">
      {codes.map((code) => (
        <li key={code}>
          <code>{code}</code>
        </li>
      ))}
    </ul>
  </div>
);

const Enabled = ({ status, onChange }: { status: Status; onChange: () => void }) => {
  const require = useDashboardAction(accountApi.requireTwoStep);
  // Only an Owner sets the organization's rule (the server refuses anyone else).
  const owner = useSession().user.role === 'owner';
  return (
    <div>
      <p>Two-step verification is on for your account. Recovery codes left: {status.recoveryCodesLeft}.</p>
      <p>
        {status.requiredByOrganization
          ? 'Every member of your organization must use it.'
          : 'Members of your organization may sign in without it.'}
      </p>
      {require.error ? <FormProblem error={require.error} /> : null}
      {owner ? (
        <button
          type="button"
          className="button"
          disabled={require.pending}
          onClick={async () => {
            if ((await require.run(!status.requiredByOrganization)).ok) onChange();
          }}
        >
          {status.requiredByOrganization
            ? 'Stop requiring it for every member'
            : 'Require it for every member'}
        </button>
      ) : null}
    </div>
  );
};
