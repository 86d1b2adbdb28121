import { type FormEvent, useId, useState } from 'react';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { dashboardApi, type SavedPayee } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { AccountFields, type AccountKind } from '../components/AccountFields.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';

const FIELDS = [
  'label',
  'account.accountName',
  'account.sortCode',
  'account.accountNumber',
  'account.iban',
] as const;

/** A saved account as the merchant reads it: `04-00-04 12345678` or the IBAN in groups of four. */
export const payeeAccountText = (account: SavedPayee['account']): string =>
  account.iban
    ? account.iban.replace(/(.{4})(?=.)/g, '$1 ')
    : `${(account.sortCode ?? '').replace(/^(\d{2})(\d{2})(\d{2})$/, '$1-$2-$3')} ${account.accountNumber ?? ''}`;

/**
 * Settings > Saved payee accounts (issue 34 item 10): the merchant's own receiving accounts, set
 * once and chosen in New payment. The server checks each with the create contract's own schema,
 * so an account New payment would refuse is refused here, and nothing is stored.
 */
export const SavedPayees = () => {
  const { result, reload } = useDashboardQuery(dashboardQueries.payees());
  return (
    <section aria-labelledby="saved-payees-heading" className="section">
      <h2 id="saved-payees-heading" className="subheading">
        Saved payee accounts
      </h2>
      <p className="muted">Your own accounts that payments go to, to choose in New payment.</p>
      {result.state === 'loading' ? <LoadingStatus label="Loading saved payees…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <PayeeList payees={result.data} /> : null}
      <AddPayeeForm />
    </section>
  );
};

const PayeeList = ({ payees }: { payees: SavedPayee[] }) => {
  const { run, pending, error } = useDashboardAction(dashboardApi.removePayee);
  if (payees.length === 0) return <p>No saved payees yet.</p>;
  return (
    <>
      <ul className="saved-payees" aria-label="Saved payees">
        {payees.map((payee) => (
          <li key={payee.id} className="saved-payees__item">
            <span>
              <strong>{payee.label}</strong> · {payee.account.accountName} ·{' '}
              <span className="saved-payees__account">{payeeAccountText(payee.account)}</span>
            </span>
            <button
              type="button"
              className="button button--small"
              aria-label={`Remove ${payee.label}`}
              disabled={pending}
              onClick={() => run(payee.id)}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <FormProblem error={error} />
    </>
  );
};

const AddPayeeForm = () => {
  const ids = useId();
  const [label, setLabel] = useState('');
  const [accountName, setAccountName] = useState('');
  const [kind, setKind] = useState<AccountKind>('uk');
  const [sortCode, setSortCode] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [iban, setIban] = useState('');
  const [saved, setSaved] = useState('');
  const { run, pending, error } = useDashboardAction(dashboardApi.savePayee);
  const problem = (field: (typeof FIELDS)[number]) => fieldError(error, field);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved('');
    const done = await run({
      label,
      account:
        kind === 'uk'
          ? { accountName, sortCode: sortCode.trim(), accountNumber: accountNumber.trim() }
          : { accountName, iban: iban.replace(/\s+/g, '') },
    });
    if (done.ok) {
      setSaved(`Saved “${done.value.label}”.`);
      setLabel('');
      setSortCode('');
      setAccountNumber('');
      setIban('');
    }
  };

  return (
    <form onSubmit={submit} noValidate className="saved-payees__form" aria-labelledby={`${ids}-heading`}>
      <h3 id={`${ids}-heading`} className="subheading">
        Add a payee account
      </h3>
      <TextField
        label="Label"
        hint="Your name for it, e.g. “Main account”."
        value={label}
        maxLength={60}
        onChange={(event) => setLabel(event.target.value)}
        error={problem('label')}
        required
      />
      <TextField
        label="Account holder name"
        value={accountName}
        maxLength={140}
        onChange={(event) => setAccountName(event.target.value)}
        error={problem('account.accountName')}
        required
      />
      <fieldset className="panel">
        <legend>Account</legend>
        <AccountFields
          name={ids}
          kind={kind}
          onKind={setKind}
          sortCode={sortCode}
          onSortCode={setSortCode}
          accountNumber={accountNumber}
          onAccountNumber={setAccountNumber}
          iban={iban}
          onIban={setIban}
          error={(field) => problem(`account.${field}`)}
        />
      </fieldset>
      <FormProblem error={error} fields={FIELDS} />
      <p role="status" className="field__hint">
        {saved}
      </p>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Saving…' : 'Save payee account'}
      </button>
    </form>
  );
};
