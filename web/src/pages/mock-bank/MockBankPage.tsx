import { type ReactNode, useState } from 'react';
import { leavePage } from '../../api/leave-page.ts';
import { type PageError, toPageError } from '../../api/page-error.ts';
import type { DecisionResult, MockBankSession } from '../../api/page-types.ts';
import { pagesApi } from '../../api/pages-api.ts';
import { useLoad } from '../../api/use-load.ts';
import { bankName } from '../../components/BankLogo.tsx';
import { Heading } from '../../components/Heading.tsx';
import { MerchantMark } from '../../components/MerchantMark.tsx';
import { PageShell } from '../../components/PageShell.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatAmount } from '../../format/money.ts';
import { ErrorView } from '../status/ErrorView.tsx';
import { OutcomeView } from '../status/OutcomeView.tsx';
import { type Decision, DecisionStep } from './DecisionStep.tsx';
import { LoginSkeleton, LoginStep } from './LoginStep.tsx';

const LINK_ENDING: ReadonlySet<string> = new Set([
  'LINK_EXPIRED',
  'LINK_INVALID',
  'NOT_FOUND',
  'MERCHANT_SUSPENDED',
]);

const bankLabel = (session: MockBankSession) => (session.bank ? `${bankName(session.bank)}` : 'Mock Bank');

/** `/mock-bank/:token`: the practice bank where the customer approves or rejects. */
export const MockBankPage = ({ token }: { token: string }) => {
  const { result, reload } = useLoad((signal) => pagesApi.mockBankSession(token, signal), token);

  if (result.state === 'loading') {
    return (
      <PageShell variant="bank" brand="Mock Bank" title="Mock Bank">
        <LoadingStatus label="Loading payment…" />
        <LoginSkeleton />
      </PageShell>
    );
  }
  if (result.state === 'failed') return <ErrorView error={result.error} link="bank" onRetry={reload} />;
  // A verified merchant is named as it chose (its brand's display name) wherever the page names it.
  const session = result.data.brand?.displayName
    ? { ...result.data, merchantName: result.data.brand.displayName }
    : result.data;
  return <MockBank token={token} session={session} reload={reload} />;
};

interface MockBankProps {
  token: string;
  session: MockBankSession;
  reload: () => void;
}

const MockBank = ({ token, session, reload }: MockBankProps) => {
  const [loggedIn, setLoggedIn] = useState(false);
  const [pending, setPending] = useState<Decision['action'] | null>(null);
  const [problem, setProblem] = useState<PageError | null>(null);
  const [decided, setDecided] = useState<DecisionResult | null>(null);
  const brand = bankLabel(session);

  const decide = async (decision: Decision) => {
    setPending(decision.action);
    setProblem(null);
    try {
      const outcome =
        decision.action === 'approve'
          ? await pagesApi.approve(token, decision.scenario)
          : await pagesApi.reject(token, decision.reason);
      setDecided(outcome);
      if (outcome.returnUrl) leavePage(outcome.returnUrl);
    } catch (error) {
      const failure = toPageError(error);
      // Decided meanwhile (another tab, or the merchant cancelled): show the real outcome.
      if (failure.kind === 'PAYMENT_ALREADY_DECIDED' || failure.kind === 'PROVIDER_CALL_IN_PROGRESS')
        reload();
      else setProblem(failure);
    } finally {
      setPending(null);
    }
  };

  if (problem && LINK_ENDING.has(problem.kind)) return <ErrorView error={problem} link="bank" />;

  const frame = (title: string, children: ReactNode) => (
    <PageShell variant="bank" brand={brand} title={`${title} · ${brand}`}>
      <MerchantMark brand={session.brand} name={session.merchantName} />
      {children}
    </PageShell>
  );

  if (decided?.returnUrl) {
    return frame(
      'Returning',
      <div className="notice">
        <Heading focusOnShow>Returning you to {session.merchantName}…</Heading>
        <p>
          If nothing happens, <a href={decided.returnUrl}>continue to {session.merchantName}</a>.
        </p>
      </div>,
    );
  }

  const outcome = decided ?? session.outcome;
  if (outcome) {
    return frame(
      'Payment result',
      <OutcomeView
        status={outcome.status}
        merchantName={session.merchantName}
        amount={session.amount}
        payee={session.payee}
        returnUrl={outcome.returnUrl}
        focusOnShow={decided !== null}
      />,
    );
  }

  if (!loggedIn)
    return frame(
      'Log in',
      <LoginStep
        bankLabel={brand}
        request={`${session.merchantName} asks you to pay ${formatAmount(session.amount.value, session.amount.currency)}.`}
        onLogin={() => setLoggedIn(true)}
      />,
    );

  return frame(
    'Approve payment',
    <DecisionStep
      session={session}
      pending={pending}
      problem={problem ? problemText(problem) : null}
      onDecide={decide}
    />,
  );
};

const problemText = (problem: PageError): string =>
  problem.kind === 'UNREACHABLE'
    ? 'We can’t reach the bank right now. Check your connection and try again.'
    : 'Your choice could not be sent. Please try again.';
