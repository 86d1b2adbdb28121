import { PaymentsApiError, PaymentsConnectionError, PaymentsTimeoutError } from './errors.ts';
import { backoffDelayMs, isRetryableFailure, MAX_RETRY_AFTER_MS, parseRetryAfterMs } from './retry-policy.ts';
import { abortableSleep, throwIfAborted } from './sleep.ts';

/** A `fetch`-compatible function: the global one, undici's, a test double, an MSW-patched one. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Default for {@link RequestSenderConfig.timeoutMs}. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default for {@link RequestSenderConfig.maxRetries}. */
export const DEFAULT_MAX_RETRIES = 2;

export interface RequestSenderConfig {
  apiKey: string;
  baseUrl: string;
  fetch?: FetchLike | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  allowInsecureHttp?: boolean | undefined;
}

type QueryValue = string | number | boolean | undefined | null;

export interface ApiRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /**
   * Whether repeating the request cannot do anything twice: reads, and a create carrying an
   * idempotency key. Cancel and the sandbox decisions are not (a repeat answers 409).
   */
  retrySafe: boolean;
  signal?: AbortSignal | undefined;
  /** This request's own time limit, instead of the client's (a waiting read: its wait plus that). */
  timeoutMs?: number | undefined;
}

/** An answer's `data` and its response headers (ETag, Preference-Applied). */
export interface ApiAnswer<T> {
  data: T;
  headers: Headers;
}

/**
 * Sends one API call: builds the URL and headers, unwraps the `{success, data}` envelope,
 * turns failures into {@link PaymentsApiError}s and retries what is safe to retry.
 * One instance per client; it holds no per-request state.
 */
export class RequestSender {
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;

  constructor(config: RequestSenderConfig) {
    if (typeof config.apiKey !== 'string' || !config.apiKey) throw new TypeError('apiKey is required');
    this.#apiKey = config.apiKey;
    this.#baseUrl = checkedBaseUrl(config.baseUrl, config.allowInsecureHttp === true);
    // Looked up at call time, so a fetch patched after the client was built (MSW, test stubs)
    // is the one used; and never called as a method of another object ("Illegal invocation").
    this.#fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxRetries = Math.max(0, config.maxRetries ?? DEFAULT_MAX_RETRIES);
  }

  /** The client's time limit for one request. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Sends the request (retrying when allowed) and returns the envelope's `data`. */
  async send<T>(request: ApiRequest): Promise<T> {
    return (await this.sendForAnswer<T>(request)).data;
  }

  /** As `send`, with the response headers too. */
  async sendForAnswer<T>(request: ApiRequest): Promise<ApiAnswer<T>> {
    return (await this.#retrying(request, false)) as ApiAnswer<T>;
  }

  async #retrying(request: ApiRequest, streamed: boolean): Promise<ApiAnswer<unknown>> {
    const url = this.#url(request.path, request.query);
    for (let attempt = 0; ; attempt++) {
      throwIfAborted(request.signal);
      try {
        return await this.#attempt(url, request, streamed);
      } catch (error) {
        throwIfAborted(request.signal);
        if (!request.retrySafe || attempt >= this.#maxRetries || !isRetryableFailure(error)) throw error;
        const retryAfterMs = error instanceof PaymentsApiError ? error.retryAfterMs : undefined;
        if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
        await abortableSleep(retryAfterMs ?? backoffDelayMs(attempt), request.signal);
      }
    }
  }

  /**
   * Sends a request whose success is not an envelope (the export's CSV) and returns the body as
   * a stream once the headers are in: the time limit covers the wait for them, not the reading,
   * which can take minutes for a million rows. A failure answer is still an envelope and throws
   * as in `send`; retried like `send` while nothing has been returned.
   */
  async sendForStream(request: ApiRequest): Promise<ReadableStream<Uint8Array>> {
    return (await this.#retrying(request, true)).data as ReadableStream<Uint8Array>;
  }

  #url(path: string, query: ApiRequest['query']): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) search.set(key, String(value));
    }
    const qs = search.toString();
    return `${this.#baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  async #attempt(url: string, request: ApiRequest, streamed = false): Promise<ApiAnswer<unknown>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-api-key': this.#apiKey,
      ...request.headers,
    };
    const hasBody = request.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';

    // A timer of our own rather than AbortSignal.timeout(): fake timers control it in tests,
    // and it covers reading the body too, not only the headers.
    const controller = new AbortController();
    let timedOut = false;
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });

    try {
      const response = await this.#fetch(url, {
        method: request.method,
        headers,
        body: hasBody ? JSON.stringify(request.body) : null,
        signal: controller.signal,
        // Never follow: the x-api-key header (and the body) would go along to wherever the
        // Location points. A 3xx is handed back and becomes an error below.
        redirect: 'manual',
      });
      if (isRedirect(response)) {
        await response.body?.cancel().catch(() => undefined);
        throw this.#redirectError(response);
      }
      if (streamed && response.ok && response.body) {
        // The caller reads at its own pace; its signal still aborts the reading.
        clearTimeout(timer);
        return { data: response.body, headers: response.headers };
      }
      const text = await response.text();
      return { data: unwrapEnvelope(response, text), headers: response.headers };
    } catch (error) {
      if (error instanceof PaymentsApiError) throw error;
      throwIfAborted(request.signal);
      if (timedOut) throw new PaymentsTimeoutError(timeoutMs);
      const reason = error instanceof Error ? error.message : String(error);
      throw new PaymentsConnectionError(`Could not reach the payments API: ${reason}`, error);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  #redirectError(response: Response): PaymentsApiError {
    // The Location is the service's to give, but never repeat the key even if it echoed it.
    const location = response.headers.get('location')?.split(this.#apiKey).join('[redacted]');
    return new PaymentsApiError({
      status: response.status,
      code: 'UNEXPECTED_REDIRECT',
      message: `The payments API answered ${response.status || 'a redirect'}${
        location ? ` to ${location}` : ''
      }; redirects are not followed, so the API key was sent nowhere else. Check baseUrl`,
    });
  }
}

/** `fetch` in a browser hides a manual redirect as an opaque response with status 0. */
const isRedirect = (response: Response): boolean =>
  response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);

/** Loopback only: `localhost`, 127.0.0.0/8 (URL has already normalized `127.1` and the like), `[::1]`. */
const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/**
 * The base address, without a trailing slash, once it is safe to send the key to. Plain http
 * would put the key on the wire in clear text, so it is refused unless the host is this machine
 * or the caller opted in (`allowInsecureHttp`, for a test network).
 */
const checkedBaseUrl = (baseUrl: unknown, allowInsecureHttp: boolean): string => {
  if (typeof baseUrl !== 'string' || !baseUrl) throw new TypeError('baseUrl is required');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !allowInsecureHttp) {
    throw new TypeError(
      `baseUrl ${url.origin} uses plain http: the API key would cross the network unencrypted. ` +
        'Use https (plain http is accepted for localhost, 127.0.0.0/8 and [::1], or with allowInsecureHttp: true on a test network)',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must be an https URL, got ${url.protocol}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError('baseUrl must not carry credentials, a query or a fragment');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The envelope's `data` on success; a {@link PaymentsApiError} built from `error` otherwise. */
const unwrapEnvelope = (response: Response, text: string): unknown => {
  const body = parseJson(text);
  const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'));
  if (response.ok) {
    if (isRecord(body) && body.success === true && 'data' in body) return body.data;
    throw new PaymentsApiError({
      status: response.status,
      code: 'INVALID_RESPONSE',
      message: `Unexpected response body (HTTP ${response.status})`,
    });
  }
  const error = isRecord(body) && body.success === false && isRecord(body.error) ? body.error : undefined;
  throw new PaymentsApiError({
    status: response.status,
    message:
      typeof error?.message === 'string'
        ? error.message
        : `HTTP ${response.status} ${response.statusText}`.trim(),
    code: typeof error?.code === 'string' ? error.code : undefined,
    details: Array.isArray(error?.details) ? (error.details as PaymentsApiError['details']) : undefined,
    retryAfterMs,
  });
};
