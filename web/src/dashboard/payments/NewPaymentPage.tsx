import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { type ScenarioChoice, ScenarioPanel, toScenario } from '../../pages/mock-bank/ScenarioPanel.tsx';
import {
  type CreatedPayment,
  dashboardApi,
  type NewPaymentInput,
  type NewPaymentOptions,
  type SavedPayee,
} from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { AccountFields, type AccountKind } from '../components/AccountFields.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { TextField } from '../components/TextField.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardAction } from '../session/use-dashboard-call.ts';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';
import { PaymentLinkCard } from './PaymentLinkCard.tsx';

/** Mock bank's provider code (shared's MOCK_PROVIDER; its runtime would bring zod into the chunk). */
const MOCK = 'mock';
const CURRENCIES = ['GBP', 'EUR'] as const;
const FIELDS = [
  'payment.amount.value',
  'payment.amount.currency',
  'payment.toAccount.accountName',
  'payment.toAccount.sortCode',
  'payment.toAccount.accountNumber',
  'payment.toAccount.iban',
  'payment.reference',
] as const;

type Payee = AccountKind;
type Flow = 'HOSTED_PAGES' | 'API_ONLY';

/**
 * A fresh key per form: a double submit or a retry after a lost answer makes one payment.
 * `getRandomValues`, not `randomUUID`: the latter exists only on https or localhost, and a
 * dashboard may be opened over plain http on a LAN.
 */
const newFormKey = () =>
  `dashboard-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

/**
 * `/dashboard/payments/new`: take a payment without code. The form sends the API's own create
 * body to `dashboard.payments.create`, which calls the REST create's domain function; the
 * answer's customer link is shown with "Copy link" and a QR code (issue 23 item 4).
 */
export const NewPaymentPage = () => {
  const [created, setCreated] = useState<CreatedPayment | null>(null);
  const [formKey, setFormKey] = useState(newFormKey);
  return (
    <DashboardShell title="New payment">
      <p className="back">
        <Link to="/dashboard/payments">← All payments</Link>
      </p>
      {created ? (
        <PaymentLinkCard
          created={created}
          onAnother={() => {
            setCreated(null);
            setFormKey(newFormKey());
          }}
        />
      ) : (
        <>
          <Heading>New payment</Heading>
          <p className="muted">
            Creates a payment and a link for your customer: send it by message, or show its QR code at the
            counter.
          </p>
          <NewPaymentChoices formKey={formKey} onCreated={setCreated} />
        </>
      )}
    </DashboardShell>
  );
};

/**
 * The form once it knows what it may offer in the session's mode (a live session: no Mock bank,
 * no practice bank) and the saved payees; with nothing to offer, it says why and whom to ask.
 */
const NewPaymentChoices = ({
  formKey,
  onCreated,
}: {
  formKey: string;
  onCreated: (created: CreatedPayment) => void;
}) => {
  const options = useDashboardQuery(dashboardQueries.newPaymentOptions());
  const payees = useDashboardQuery(dashboardQueries.payees());
  if (options.result.state === 'failed') {
    return <LoadProblem error={options.result.error} onRetry={options.reload} />;
  }
  if (payees.result.state === 'failed')
    return <LoadProblem error={payees.result.error} onRetry={payees.reload} />;
  if (options.result.state === 'loading' || payees.result.state === 'loading') {
    return <LoadingStatus label="Loading the form…" />;
  }
  const offered = options.result.data;
  if (offered.providers.length === 0) {
    return (
      <section className="section" aria-labelledby="nothing-yet-heading">
        <h2 id="nothing-yet-heading" className="subheading">
          {offered.mode === 'live' ? 'No live payments yet' : 'No payments can be made yet'}
        </h2>
        <p>{offered.unavailable}</p>
      </section>
    );
  }
  return (
    <NewPaymentForm
      key={formKey}
      idempotencyKey={formKey}
      options={offered}
      payees={payees.result.data}
      onCreated={onCreated}
    />
  );
};

interface NewPaymentFormProps {
  idempotencyKey: string;
  options: NewPaymentOptions;
  payees: SavedPayee[];
  onCreated: (created: CreatedPayment) => void;
}

const NewPaymentForm = ({ idempotencyKey, options, payees, onCreated }: NewPaymentFormProps) => {
  const ids = useId();
  const { organization } = useSession();
  const providers = options.providers;
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState<string>('GBP');
  const [payee, setPayee] = useState<Payee>('uk');
  const [accountName, setAccountName] = useState(organization.name);
  const [sortCode, setSortCode] = useState('');
  const [accountNumber, setAccountNumber] = useState('');
  const [iban, setIban] = useState('');
  const [reference, setReference] = useState('');
  const [flow, setFlow] = useState<Flow>(options.hostedPages ? 'HOSTED_PAGES' : 'API_ONLY');
  const [provider, setProvider] = useState(
    providers.some((entry) => entry.code === MOCK) ? MOCK : (providers[0]?.code ?? MOCK),
  );
  const chosen = providers.find((entry) => entry.code === provider);
  const banks = chosen?.banks ?? [];
  const [bankId, setBankId] = useState('');
  // "Straight to the bank" with a real provider: its one bank is taken, else the merchant picks one.
  const bankNeeded = flow === 'API_ONLY' && (chosen?.needsBank ?? false);
  const bank = banks.length === 1 ? banks[0]?.id : bankId;
  const [savedPayee, setSavedPayee] = useState('');
  const [scenario, setScenario] = useState<ScenarioChoice>({ kind: 'preset', preset: 'instant' });
  const [scenarioInvalid, setScenarioInvalid] = useState(false);
  const { run, pending, error } = useDashboardAction(dashboardApi.createPayment);
  const problem = (field: (typeof FIELDS)[number]) => fieldError(error, field);

  // A saved payee fills the payee's fields (still editable: a one-off change is the merchant's).
  const choosePayee = (payeeId: string) => {
    setSavedPayee(payeeId);
    const saved = payees.find((entry) => entry.id === payeeId);
    if (!saved) return;
    setAccountName(saved.account.accountName);
    if (saved.account.iban) {
      setPayee('iban');
      setIban(saved.account.iban);
    } else {
      setPayee('uk');
      setSortCode(saved.account.sortCode ?? '');
      setAccountNumber(saved.account.accountNumber ?? '');
    }
  };
  // The API names the bank by its field; the form says it in its own words.
  const bankProblem = fieldError(error, 'payment.bankId') ? 'Choose the customer’s bank' : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const mockBank = provider === MOCK ? toScenario(scenario) : undefined;
    setScenarioInvalid(mockBank === null);
    if (mockBank === null) return;
    const payment: NewPaymentInput['payment'] = {
      amount: { value: amount.trim(), currency },
      toAccount:
        payee === 'uk'
          ? { accountName, sortCode: sortCode.trim(), accountNumber: accountNumber.trim() }
          : { accountName, iban: iban.replace(/\s+/g, '') },
      ...(reference.trim() ? { reference: reference.trim() } : {}),
      flowType: flow,
      provider,
      ...(bankNeeded && bank ? { bankId: bank } : {}),
      ...(mockBank ? { mockBank } : {}),
    };
    const done = await run({ payment, idempotencyKey });
    if (done.ok) onCreated(done.value);
  };

  return (
    <form onSubmit={submit} noValidate className="section new-payment">
      <div className="new-payment__amount">
        <TextField
          label="Amount"
          inputMode="decimal"
          autoComplete="off"
          hint="For example 12.50"
          value={amount}
          onChange={(event) => setAmount(event.target.value)}
          error={problem('payment.amount.value')}
          required
        />
        <div className="field">
          <label htmlFor={`${ids}-currency`}>Currency</label>
          <select
            id={`${ids}-currency`}
            value={currency}
            onChange={(event) => setCurrency(event.target.value)}
          >
            {CURRENCIES.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        </div>
      </div>

      <fieldset className="panel">
        <legend>Payee (who gets paid)</legend>
        {payees.length > 0 ? (
          <div className="field">
            <label htmlFor={`${ids}-saved-payee`}>Saved payee</label>
            <select
              id={`${ids}-saved-payee`}
              value={savedPayee}
              onChange={(event) => choosePayee(event.target.value)}
            >
              <option value="">Enter the account below</option>
              {payees.map((entry) => (
                <option key={entry.id} value={entry.id}>
                  {entry.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <TextField
          label="Payee name"
          value={accountName}
          maxLength={140}
          onChange={(event) => setAccountName(event.target.value)}
          error={problem('payment.toAccount.accountName')}
          required
        />
        <AccountFields
          name={`${ids}-payee`}
          kind={payee}
          onKind={setPayee}
          sortCode={sortCode}
          onSortCode={setSortCode}
          accountNumber={accountNumber}
          onAccountNumber={setAccountNumber}
          iban={iban}
          onIban={setIban}
          error={(field) => problem(`payment.toAccount.${field}`)}
        />
      </fieldset>

      <TextField
        label="Reference (optional)"
        hint="Shown on the bank statement, e.g. an order or table number."
        value={reference}
        maxLength={140}
        onChange={(event) => setReference(event.target.value)}
        error={problem('payment.reference')}
      />

      <fieldset className="panel">
        <legend>How the customer pays</legend>
        {options.hostedPages ? (
          <label className="choice">
            <input
              type="radio"
              name={`${ids}-flow`}
              checked={flow === 'HOSTED_PAGES'}
              onChange={() => setFlow('HOSTED_PAGES')}
            />
            <span>
              They choose their bank <span className="muted">· our page lists the banks</span>
            </span>
          </label>
        ) : null}
        <label className="choice">
          <input
            type="radio"
            name={`${ids}-flow`}
            checked={flow === 'API_ONLY'}
            onChange={() => setFlow('API_ONLY')}
          />
          <span>
            Straight to the bank <span className="muted">· the link opens the provider’s page</span>
          </span>
        </label>
      </fieldset>

      {providers.length > 1 ? (
        <div className="field">
          <label htmlFor={`${ids}-provider`}>Provider</label>
          <select
            id={`${ids}-provider`}
            value={provider}
            onChange={(event) => setProvider(event.target.value)}
          >
            {providers.map((entry) => (
              <option key={entry.code} value={entry.code}>
                {entry.code === MOCK ? 'Mock bank (test, no money moves)' : entry.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {bankNeeded && banks.length === 1 ? (
        <p className="new-payment__bank">
          Bank: <strong>{banks[0]?.name}</strong>{' '}
          <span className="muted">· the only bank {chosen?.name} reaches here</span>
        </p>
      ) : null}
      {bankNeeded && banks.length > 1 ? (
        <div className="field">
          <label htmlFor={`${ids}-bank`}>Customer’s bank</label>
          <select
            id={`${ids}-bank`}
            value={bankId}
            aria-invalid={bankProblem ? true : undefined}
            aria-describedby={bankProblem ? `${ids}-bank-error` : undefined}
            onChange={(event) => setBankId(event.target.value)}
          >
            <option value="">Choose a bank</option>
            {banks.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
          </select>
          {bankProblem ? (
            <p id={`${ids}-bank-error`} className="field__error">
              {bankProblem}
            </p>
          ) : null}
        </div>
      ) : null}
      {provider === MOCK ? (
        <ScenarioPanel
          choice={scenario}
          onChange={setScenario}
          invalid={scenarioInvalid}
          disabled={pending}
        />
      ) : null}

      <FormProblem error={error} fields={[...FIELDS, 'payment.bankId']} />
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Creating…' : 'Create payment and link'}
      </button>
    </form>
  );
};
