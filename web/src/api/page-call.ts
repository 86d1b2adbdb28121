import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';

type Inputs = inferRouterInputs<AppRouter>['pages'];
type Outputs = inferRouterOutputs<AppRouter>['pages'];

/**
 * A `pages` call that failed: `data` is the server's error data (its errorFormatter's shape,
 * read only by page-error.ts), undefined when no answer of ours came back (offline, a proxy's
 * error page).
 */
export class PageCallError extends Error {
  readonly data: unknown;

  constructor(message: string, data: unknown) {
    super(message);
    this.name = 'PageCallError';
    this.data = data;
  }
}

/**
 * One call of the server's `pages` procedures over tRPC's HTTP protocol, as `httpLink` sends it
 * (https://trpc.io/docs/rpc): a query is GET with `?input=<json>`, a mutation POSTs its input as
 * JSON; the answer is `{ result: { data } }` or `{ error: { message, code, data } }`. Typed by
 * the server's router (type-only imports). Not @trpc/client: the customer pages have an 80 KB
 * budget (issue 9) and the client with the server code it imports weighed ~5 KB gzipped of it,
 * for six calls. The dashboard, a chunk of its own, keeps @trpc/client. An aborted call
 * rejects with the fetch's own AbortError.
 */
export async function pageCall<Procedure extends keyof Inputs>(
  procedure: Procedure,
  input: Inputs[Procedure],
  options: { mutation?: boolean; signal?: AbortSignal | undefined } = {},
): Promise<Outputs[Procedure]> {
  const url = new URL(`/trpc/pages.${procedure}`, window.location.origin);
  const body = JSON.stringify(input);
  if (!options.mutation) url.searchParams.set('input', body);
  let response: Response;
  try {
    response = await fetch(
      url,
      options.mutation
        ? { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: options.signal }
        : { signal: options.signal },
    );
  } catch (error) {
    if ((error as { name?: unknown }).name === 'AbortError') throw error;
    throw new PageCallError(error instanceof Error ? error.message : String(error), undefined);
  }
  const answer = (await response.json().catch((error: unknown) => {
    // Cancelled while the answer was arriving: still a cancellation, not a broken answer.
    if (options.signal?.aborted) throw error;
    return undefined;
  })) as { result?: { data: Outputs[Procedure] }; error?: { message?: string; data?: unknown } } | undefined;
  if (response.ok && answer?.result) return answer.result.data;
  throw new PageCallError(answer?.error?.message ?? `HTTP ${response.status}`, answer?.error?.data);
}
