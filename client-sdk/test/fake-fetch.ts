import type { FetchLike } from '../src/index.ts';

/** One request the fake saw, with the fake clock's time it arrived. */
export type SeenRequest = {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
  /** What the client asked fetch to do with a redirect. */
  redirect: RequestRedirect | undefined;
  at: number;
};

type Reply = Response | Error | 'hang' | ((request: SeenRequest) => Response | Error | 'hang');

export const ok = (data: unknown, status = 200) =>
  new Response(JSON.stringify({ success: true, data }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

export const fail = (
  status: number,
  error: { message: string; code?: string; details?: unknown },
  headers = {},
) =>
  new Response(JSON.stringify({ success: false, error }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/**
 * A scripted `fetch`: answers with the queued replies in order (the last one repeats), records
 * every request. `'hang'` never answers until the request's signal aborts, like a dead server.
 */
export const fakeFetch = (...replies: Reply[]) => {
  const requests: SeenRequest[] = [];
  const fetch: FetchLike = async (input, init) => {
    const seen: SeenRequest = {
      method: init.method ?? 'GET',
      url: new URL(input),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      redirect: init.redirect,
      at: Date.now(),
    };
    requests.push(seen);
    const next = replies.length > 1 ? replies.shift() : replies[0];
    const reply = typeof next === 'function' ? next(seen) : next;
    if (reply === undefined) throw new Error('fakeFetch: no reply scripted');
    if (reply === 'hang') {
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
      });
    }
    if (reply instanceof Error) throw reply;
    return reply.clone();
  };
  return { fetch, requests };
};

export const networkError = () => new TypeError('fetch failed');
