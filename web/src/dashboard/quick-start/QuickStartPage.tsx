import { useId, useState } from 'react';
import { Link } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import type { QuickStart } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';
import { curlSnippet, type SnippetValues, sdkSnippet } from './quick-start-snippets.ts';

/** `/dashboard/quick-start`: from a new account to a first payment, with the merchant's own values. */
export const QuickStartPage = () => {
  const { result, reload } = useDashboardQuery(dashboardQueries.quickStart());
  return (
    <DashboardShell title="Quick start">
      <Heading>Quick start</Heading>
      {result.state === 'loading' ? <LoadingStatus label="Loading quick start…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <Steps quickStart={result.data} /> : null}
    </DashboardShell>
  );
};

const Steps = ({ quickStart }: { quickStart: QuickStart }) => {
  const { organization } = useSession();
  // Name a key that can create payments, if the merchant has one.
  const key =
    quickStart.apiKeys.find((entry) => entry.permissions.includes('write')) ?? quickStart.apiKeys[0] ?? null;
  const values: SnippetValues = {
    baseUrl: quickStart.publicBaseUrl,
    apiBaseUrl: quickStart.apiBaseUrl,
    businessName: organization.name,
    keyPrefix: key?.prefix ?? null,
  };
  return (
    <ol className="steps">
      <li>
        <h2 className="subheading">Create an API key</h2>
        <p>
          On the <Link to="/dashboard/api-keys">API keys page</Link>, with Read and Write. It is shown once:
          put it in your server’s environment as <code>PIS_API_KEY</code>.
          {values.keyPrefix ? (
            <>
              {' '}
              You already have “{key?.name}”, starting with <code>{values.keyPrefix}</code>.
            </>
          ) : null}
        </p>
      </li>
      <li>
        <h2 className="subheading">Create a payment</h2>
        <p>
          Base URL: <code>{values.apiBaseUrl}</code> (reference at{' '}
          <a href={`${values.baseUrl}/docs`}>{values.baseUrl}/docs</a>).
        </p>
        <CodeBlock label="curl example" code={curlSnippet(values)} />
      </li>
      <li>
        <h2 className="subheading">Send the customer, check the return</h2>
        <p>
          With the TypeScript SDK: store the <code>paymentId</code> with the order, then check the return
          against it with <code>verifyReturn(url, {'{ expectedPaymentId }'})</code>.
        </p>
        <CodeBlock label="SDK example" code={sdkSnippet(values)} />
      </li>
      <li>
        <h2 className="subheading">Watch it complete</h2>
        <p>
          The Mock bank needs no credentials and moves no money. Approve or reject the payment from its page
          under <Link to="/dashboard/payments">Payments</Link>, or open the customer’s page from there.
        </p>
      </li>
    </ol>
  );
};

const CodeBlock = ({ label, code }: { label: string; code: string }) => {
  const [copied, setCopied] = useState(false);
  const captionId = useId();
  return (
    <figure className="code" aria-labelledby={captionId}>
      <figcaption className="code__caption">
        <span id={captionId}>{label}</span>
        <button
          type="button"
          className="button button--small"
          onClick={() =>
            navigator.clipboard.writeText(code).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy<span className="visually-hidden"> {label}</span>
        </button>
        <span role="status" className="code__copied">
          {copied ? 'Copied' : ''}
        </span>
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll, so the block must be reachable by keyboard */}
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
};
