import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { FormProblem } from '../components/FormProblem.tsx';
import { AccountShell } from '../layout/DashboardShell.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { accountApi, tokenFromHash } from './account-api.ts';

/**
 * `/dashboard/verify-email#token=...`. A button rather than a call on load: a mail scanner that
 * opens links must not confirm an address on its owner's behalf.
 */
export const VerifyEmailPage = () => {
  const { hash } = useLocation();
  const [token] = useState(() => tokenFromHash(hash));
  const [verified, setVerified] = useState<string | null>(null);
  const { run, pending, error } = useDashboardAction(accountApi.verifyEmail, { signedOutForm: true });

  return (
    <AccountShell title="Confirm your email address">
      <Heading>Confirm your email address</Heading>
      {verified ? (
        <p role="status">
          {verified} is confirmed. <Link to="/dashboard">Go to the dashboard</Link>
        </p>
      ) : (
        <>
          <FormProblem error={error} />
          <button
            type="button"
            className="button button--primary"
            disabled={pending}
            onClick={async () => {
              const done = await run(token);
              if (done.ok) setVerified(done.value.email);
            }}
          >
            {pending ? 'Confirming…' : 'Confirm email address'}
          </button>
        </>
      )}
    </AccountShell>
  );
};
