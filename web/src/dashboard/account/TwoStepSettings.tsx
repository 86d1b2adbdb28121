import { type FormEvent, useEffect, useRef, useState } from 'react';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { qrCodeDataUrl } from '../payments/qr-code.ts';
import { useSession } from '../session/session-context.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { accountApi } from './account-api.ts';
import { SensitiveActionProblem } from './ConfirmIdentity.tsx';

type Status = Awaited<ReturnType<typeof accountApi.twoStep>>;
type Setup = Awaited<ReturnType<typeof accountApi.beginTwoStep>>;

/**
 * Settings, "Two-step verification": set it up (QR code and setup key, then a code from the app),
 * the recovery codes shown once, the organization's rule that every member uses it, and, with
 * the password and a code, new recovery codes or turning it off (refused while the organization
 * requires it: the page then offers no "Turn off").
 */
export const TwoStepSettings = () => {
  const { result, reload } = useDashboardLoad((signal) => accountApi.twoStep(signal), 'two-step');
  const [recoveryCodes, setRecoveryCodes] = useState<{ codes: string[]; replaced: boolean } | null>(null);
  const [notice, setNotice] = useState('');
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
      {/* Keyed by the set: a new set is a new notice, and focus moves to it again. */}
      {recoveryCodes ? <RecoveryCodes key={recoveryCodes.codes[0]} {...recoveryCodes} /> : null}
      <p role="status">{notice}</p>
      {result.state === 'ready' && !result.data.enabled ? (
        <>
          {result.data.requiredByOrganization ? (
            <p className="inline-problem" role="status">
              Your organization requires two-step verification: set it up to use the dashboard.
            </p>
          ) : null}
          <SetUp
            onEnabled={(codes) => {
              setNotice('');
              setRecoveryCodes({ codes, replaced: false });
              reload();
            }}
          />
        </>
      ) : null}
      {result.state === 'ready' && result.data.enabled ? (
        <Enabled
          status={result.data}
          onChange={reload}
          onNewCodes={(codes) => {
            setRecoveryCodes({ codes, replaced: true });
            reload();
          }}
          onTurnedOff={() => {
            setRecoveryCodes(null);
            setNotice('Two-step verification is off: signing in asks only for your password.');
            reload();
          }}
        />
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
        {begin.error ? (
          // A new second factor on a session signed in long ago asks "Confirm it's you" first.
          <SensitiveActionProblem error={begin.error} onConfirmed={begin.clearError} />
        ) : null}
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

/** Shown once, after setup or "New recovery codes"; focus lands on it for keyboard users. */
const RecoveryCodes = ({ codes, replaced }: { codes: string[]; replaced: boolean }) => {
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div role="status" aria-labelledby="recovery-codes-heading">
      <h3 id="recovery-codes-heading" tabIndex={-1} ref={heading}>
        {replaced ? 'New recovery codes' : 'Recovery codes'}
      </h3>
      <p>
        {replaced ? 'Your earlier recovery codes no longer work.' : 'Two-step verification is on.'} Keep these
        codes somewhere safe: each signs you in once without your phone. They are shown only now.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <button type="button" className="button" onClick={copy}>
        Copy codes
      </button>
      <p className="new-key__copied">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the codes and copy them.'
            : ''}
      </p>
    </div>
  );
};

type Change = 'new-codes' | 'turn-off';

const Enabled = ({
  status,
  onChange,
  onNewCodes,
  onTurnedOff,
}: {
  status: Status;
  onChange: () => void;
  onNewCodes: (codes: string[]) => void;
  onTurnedOff: () => void;
}) => {
  const require = useDashboardAction(accountApi.requireTwoStep);
  const [change, setChange] = useState<Change | null>(null);
  // Only an Owner sets the organization's rule (the server refuses anyone else).
  const owner = useSession().user.role === 'owner';
  return (
    <div>
      <p>Two-step verification is on for your account. Recovery codes left: {status.recoveryCodesLeft}.</p>
      <p>
        {status.requiredByOrganization
          ? 'Every member of your organization must use it, so it cannot be turned off.'
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
      {change ? (
        <ReauthForm
          change={change}
          onCancel={() => setChange(null)}
          onDone={(codes) => {
            setChange(null);
            if (codes) onNewCodes(codes);
            else onTurnedOff();
          }}
        />
      ) : (
        <div className="actions">
          <button type="button" className="button" onClick={() => setChange('new-codes')}>
            New recovery codes
          </button>
          {status.requiredByOrganization ? null : (
            <button type="button" className="button" onClick={() => setChange('turn-off')}>
              Turn off
            </button>
          )}
        </div>
      )}
    </div>
  );
};

/** Both changes ask for the password and a current code (from the app, or a recovery code). */
const ReauthForm = ({
  change,
  onCancel,
  onDone,
}: {
  change: Change;
  onCancel: () => void;
  onDone: (newCodes: string[] | null) => void;
}) => {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const regenerate = useDashboardAction(accountApi.regenerateRecoveryCodes);
  const turnOff = useDashboardAction(accountApi.turnOffTwoStep);
  const action = change === 'new-codes' ? regenerate : turnOff;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (change === 'new-codes') {
      const done = await regenerate.run({ password, code });
      if (done.ok) onDone(done.value.recoveryCodes);
    } else if ((await turnOff.run({ password, code })).ok) {
      onDone(null);
    }
  };
  const title = change === 'new-codes' ? 'Make new recovery codes' : 'Turn off two-step';
  return (
    <form onSubmit={submit} noValidate aria-labelledby="two-step-change-heading">
      <h3 id="two-step-change-heading">{title}</h3>
      <p className="muted">
        {change === 'new-codes'
          ? 'Ten new codes replace all your recovery codes: the old ones stop working at once.'
          : 'Sign-in will then ask only for your password, and your other sessions are signed out. You can set it up again later.'}
      </p>
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        autoFocus
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        error={fieldError(action.error, 'password')}
      />
      <TextField
        label="Code"
        inputMode="text"
        autoComplete="one-time-code"
        value={code}
        onChange={(event) => setCode(event.target.value)}
        hint="The 6-digit code from your app, or one of your recovery codes."
        error={fieldError(action.error, 'code')}
      />
      {action.error ? <FormProblem error={action.error} /> : null}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={action.pending}>
          {action.pending ? 'Checking…' : change === 'new-codes' ? 'Make new codes' : 'Turn off'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
};
