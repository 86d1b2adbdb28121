import { type ReactNode, useState } from 'react';
import { leavePage } from '../../api/leave-page.ts';
import { type PageError, toPageError } from '../../api/page-error.ts';
import type { Bank, HostedSession } from '../../api/page-types.ts';
import { pagesApi } from '../../api/pages-api.ts';
import { useLoad } from '../../api/use-load.ts';
import { bankName } from '../../components/BankLogo.tsx';
import { Heading } from '../../components/Heading.tsx';
import { PageShell } from '../../components/PageShell.tsx';
import { PaymentSummary } from '../../components/PaymentSummary.tsx';
import { HeadingSkeleton, LoadingStatus, SummarySkeleton } from '../../components/Skeleton.tsx';
import { ErrorView } from '../status/ErrorView.tsx';
import { OutcomeView } from '../status/OutcomeView.tsx';
import { BankPicker, PickerSkeleton } from './BankPicker.tsx';
import { EmbeddedConfirm } from './EmbeddedConfirm.tsx';

/** Errors after which this link cannot go on: shown as a whole page. */
const LINK_ENDING: ReadonlySet<string> = new Set([
  'LINK_EXPIRED',
  'LINK_INVALID',
  'NOT_FOUND',
  'MERCHANT_SUSPENDED',
]);

/** `/pay/:token`: the hosted payment page (HOSTED_PAGES and EMBEDDED_HOSTED_PAGES). */
export const HostedPaymentPage = ({ token }: { token: string }) => {
  const { result, reload } = useLoad((signal) => pagesApi.hostedSession(token, signal), token);

  if (result.state === 'loading') {
    return (
      <PageShell variant="hosted" brand="Secure payment" title="Loading payment…">
        <LoadingStatus label="Loading payment…" />
        <HeadingSkeleton />
        <SummarySkeleton />
        <PickerSkeleton />
      </PageShell>
    );
  }
  if (result.state === 'failed') return <ErrorView error={result.error} link="hosted" onRetry={reload} />;
  return <HostedPayment token={token} session={result.data} reload={reload} />;
};

interface HostedPaymentProps {
  token: string;
  session: HostedSession;
  reload: () => void;
}

const HostedPayment = ({ token, session, reload }: HostedPaymentProps) => {
  const [choosing, setChoosing] = useState<Bank | null>(null);
  const [leaving, setLeaving] = useState<{ bank: Bank; url: string } | null>(null);
  const [problem, setProblem] = useState<PageError | null>(null);
  const title = `Pay ${session.brand?.displayName || session.merchantName}`;

  const choose = async (bank: Bank) => {
    setChoosing(bank);
    setProblem(null);
    try {
      const { redirectUrl } = await pagesApi.chooseBank(token, bank.id);
      setLeaving({ bank, url: redirectUrl });
      leavePage(redirectUrl);
    } catch (error) {
      const failure = toPageError(error);
      // Chosen meanwhile (another tab, a double click): the fresh session shows where it stands.
      if (failure.kind === 'PAYMENT_ALREADY_DECIDED' || failure.kind === 'PROVIDER_CALL_IN_PROGRESS')
        reload();
      else setProblem(failure);
    } finally {
      setChoosing(null);
    }
  };

  if (problem && LINK_ENDING.has(problem.kind)) return <ErrorView error={problem} link="hosted" />;

  const frame = (children: ReactNode) => (
    <PageShell
      variant="hosted"
      brand={session.merchantName}
      merchant={session.brand}
      title={title}
      testPayment={session.testPayment}
    >
      {children}
    </PageShell>
  );

  if (session.outcome) {
    return frame(
      <OutcomeView
        status={session.outcome.status}
        merchantName={session.merchantName}
        amount={session.amount}
        payee={session.payee}
        returnUrl={session.outcome.returnUrl}
      />,
    );
  }

  if (leaving) {
    return frame(
      <div className="notice">
        <Heading focusOnShow>Opening {bankName(leaving.bank)}…</Heading>
        <p>
          If nothing happens, <a href={leaving.url}>continue to your bank</a>.
        </p>
      </div>,
    );
  }

  if (session.next) {
    return frame(
      <>
        <Heading>Continue at your bank</Heading>
        <PaymentSummary
          amount={session.amount}
          payee={session.payee}
          reference={session.reference}
          bank={session.bank}
        />
        <p>You have already chosen your bank. Approve the payment on your bank’s page.</p>
        <a className="button button--primary button--block" href={session.next.mockBankUrl}>
          Continue to {session.bank ? bankName(session.bank) : 'your bank'}
        </a>
      </>,
    );
  }

  const embeddedBank = session.flowType === 'EMBEDDED_HOSTED_PAGES' ? session.bank : null;
  return frame(
    <>
      <Heading>{title}</Heading>
      <PaymentSummary amount={session.amount} payee={session.payee} reference={session.reference} />
      {problem ? (
        <p className="inline-problem" role="alert">
          {problem.kind === 'UNREACHABLE'
            ? 'We can’t reach the payment service. Check your connection and try again.'
            : 'Your bank could not be opened. Please try again.'}
        </p>
      ) : null}
      {embeddedBank ? (
        <EmbeddedConfirm
          bank={embeddedBank}
          choosing={choosing !== null}
          onConfirm={() => choose(embeddedBank)}
        />
      ) : (
        <BankPicker
          token={token}
          countries={session.countries}
          defaultCountry={session.defaultCountry}
          choosing={choosing !== null}
          onChoose={choose}
        />
      )}
    </>,
  );
};
