import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PaymentsClient } from '../../../client-sdk/src/index.ts';

/**
 * Merchant load for the cluster tests: creates, each with an Idempotency-Key and retried with the
 * same key until answered 201 (as a merchant's retry or the SDK does), and approvals of what was
 * created. Every answer is recorded with when it was sent and when it came, so a test can say
 * what was acknowledged before an instant and how long no create succeeded.
 */

export const CREATE_BODY = {
  amount: { value: '10.00', currency: 'GBP' },
  toAccount: { accountName: 'Cluster Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  reference: 'cluster',
};

export interface Answer {
  kind: 'create' | 'approve' | 'sdk-create';
  key?: string;
  paymentId?: string;
  status: number;
  code?: string;
  retryAfter?: string | null;
  sentAt: number;
  answeredAt: number;
  error?: string;
}

export interface LoadResult {
  answers: Answer[];
  /** Idempotency-Key -> every payment id a 201 answered with for it (one, if nothing doubled). */
  createdByKey: Map<string, Set<string>>;
  /** Payments whose approval answered 200. */
  approved: Set<string>;
  /** Keys still unanswered when the load stopped (their requests were given up). */
  unfinished: string[];
}

export interface LoadOptions {
  base: string;
  apiKey: string;
  createLoops: number;
  /** Approve every created payment, the Mock bank completing it this many seconds later. */
  completeAfterSeconds?: number | undefined;
  /** A loop creating through the SDK (its own retry across the failover). */
  sdk?: boolean | undefined;
  pauseMs?: number;
}

const RETRYING_PER_LOOP = 5;

/** Wall-clock ms (Date.now) to compare with database timestamps and RFC 3339 instants. */
const now = () => Date.now();

export function startLoad(options: LoadOptions) {
  let running = true;
  const answers: Answer[] = [];
  const createdByKey = new Map<string, Set<string>>();
  const approved = new Set<string>();
  const toApprove: string[] = [];
  const unfinished = new Set<string>();
  const headers = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
  const pause = options.pauseMs ?? 30;

  const send = async (
    kind: Answer['kind'],
    url: string,
    init: RequestInit,
    key?: string,
  ): Promise<Answer> => {
    const sentAt = now();
    try {
      const response = await fetch(`${options.base}${url}`, {
        method: 'POST',
        ...init,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let body: { data?: { paymentId?: string }; error?: { code?: string } } = {};
      try {
        body = JSON.parse(text);
      } catch {}
      const answer: Answer = {
        kind,
        status: response.status,
        sentAt,
        answeredAt: now(),
        retryAfter: response.headers.get('retry-after'),
        ...(key ? { key } : {}),
        ...(body.data?.paymentId ? { paymentId: body.data.paymentId } : {}),
        ...(body.error?.code ? { code: body.error.code } : {}),
        ...(response.status >= 300 && !body.error ? { error: text.slice(0, 200) } : {}),
      };
      answers.push(answer);
      return answer;
    } catch (error) {
      const answer: Answer = {
        kind,
        status: 0,
        sentAt,
        answeredAt: now(),
        error: error instanceof Error ? `${error.message} ${String(error.cause)}` : String(error),
        ...(key ? { key } : {}),
      };
      answers.push(answer);
      return answer;
    }
  };

  const created = (key: string, paymentId: string) => {
    let ids = createdByKey.get(key);
    if (!ids) {
      ids = new Set();
      createdByKey.set(key, ids);
    }
    ids.add(paymentId);
  };

  /** One order's create: the same key until a 201 (a retry must answer the first payment). */
  const createUntilAnswered = async (key: string, previous: Answer) => {
    let answer = previous;
    for (let attempt = 0; ; attempt++) {
      // Retry-After (1 s) on a 503; a 409 IN_PROGRESS says "shortly".
      await sleep(answer.retryAfter ? 1_000 : 250);
      answer = await send(
        'create',
        '/api/payments',
        { headers: { ...headers, 'idempotency-key': key }, body: JSON.stringify(CREATE_BODY) },
        key,
      );
      if (answer.status === 201 && answer.paymentId) {
        created(key, answer.paymentId);
        unfinished.delete(key);
        if (options.completeAfterSeconds !== undefined) toApprove.push(answer.paymentId);
        return;
      }
      if (!running && attempt > 200) return;
    }
  };

  /**
   * A merchant's stream of orders: a failed create is retried in the background while new
   * orders keep coming (up to RETRYING_PER_LOOP of them retrying at once, as a client with
   * bounded concurrency), so the measured windows are the database's, not one stuck order's.
   */
  const creating = async () => {
    const retrying = new Set<Promise<void>>();
    while (running) {
      const key = randomUUID();
      unfinished.add(key);
      const first = await send(
        'create',
        '/api/payments',
        { headers: { ...headers, 'idempotency-key': key }, body: JSON.stringify(CREATE_BODY) },
        key,
      );
      if (first.status === 201 && first.paymentId) {
        created(key, first.paymentId);
        unfinished.delete(key);
        if (options.completeAfterSeconds !== undefined) toApprove.push(first.paymentId);
        await sleep(pause);
        continue;
      }
      const retry = createUntilAnswered(key, first).finally(() => retrying.delete(retry));
      retrying.add(retry);
      await sleep(first.retryAfter ? 200 : 100);
      while (retrying.size >= RETRYING_PER_LOOP && running) await Promise.race(retrying);
    }
    await Promise.all(retrying);
  };

  const approving = async () => {
    while (running || toApprove.length > 0) {
      const paymentId = toApprove.shift();
      if (!paymentId) {
        await sleep(50);
        continue;
      }
      for (let attempt = 0; attempt < 600; attempt++) {
        const answer = await send('approve', `/api/payments/${paymentId}/mock-bank/approve`, {
          headers,
          body: JSON.stringify({ completeAfterSeconds: options.completeAfterSeconds }),
        });
        if (answer.status === 200) {
          approved.add(paymentId);
          break;
        }
        // A 409/400 after a lost answer: the first approval went through (the test reads the row).
        if (answer.status >= 400 && answer.status < 500 && attempt > 0) break;
        await sleep(200);
      }
    }
  };

  const sdkCreating = async () => {
    const client = new PaymentsClient({
      apiKey: options.apiKey,
      baseUrl: options.base,
      allowInsecureHttp: true,
      // Enough retries to outlast a failover (Retry-After 1 s, else backoff up to 8 s).
      maxRetries: 40,
      timeoutMs: 20_000,
    });
    while (running) {
      const key = randomUUID();
      unfinished.add(key);
      const sentAt = now();
      try {
        const payment = await client.payments.create(CREATE_BODY, { idempotencyKey: key });
        answers.push({
          kind: 'sdk-create',
          key,
          paymentId: payment.paymentId,
          status: 201,
          sentAt,
          answeredAt: now(),
        });
        created(key, payment.paymentId);
        unfinished.delete(key);
      } catch (error) {
        answers.push({
          kind: 'sdk-create',
          key,
          status: -1,
          sentAt,
          answeredAt: now(),
          error: String(error),
        });
      }
      await sleep(pause);
    }
  };

  const loops = [
    ...Array.from({ length: options.createLoops }, creating),
    ...(options.completeAfterSeconds !== undefined ? [approving()] : []),
    ...(options.sdk ? [sdkCreating()] : []),
  ];
  return {
    answers,
    async stop(): Promise<LoadResult> {
      running = false;
      await Promise.all(loops);
      return { answers, createdByKey, approved, unfinished: [...unfinished] };
    },
  };
}

/**
 * The longest time with no create answered 201 that was sent after `from`: from `from` to the first
 * such answer (the failover's window as a merchant sees it).
 */
export function windowAfter(answers: Answer[], from: number): number {
  const next = answers
    .filter((a) => (a.kind === 'create' || a.kind === 'sdk-create') && a.status === 201 && a.sentAt >= from)
    .sort((a, b) => a.answeredAt - b.answeredAt)[0];
  return next ? next.answeredAt - from : Number.POSITIVE_INFINITY;
}

/**
 * The longest one order waited, from its first create answered otherwise than 201 to its 201: an
 * order whose create failed while the leader moved is created once the database answers again,
 * not refused 409 IDEMPOTENCY_KEY_IN_PROGRESS until its claim counts as abandoned.
 */
export function longestRetry(answers: Answer[]): number {
  const failedAt = new Map<string, number>();
  let longest = 0;
  for (const answer of [...answers].sort((a, b) => a.answeredAt - b.answeredAt)) {
    if (!answer.key || answer.kind === 'approve') continue;
    if (answer.status !== 201) {
      if (!failedAt.has(answer.key)) failedAt.set(answer.key, answer.answeredAt);
      continue;
    }
    const from = failedAt.get(answer.key);
    if (from !== undefined) longest = Math.max(longest, answer.answeredAt - from);
  }
  return longest;
}

/** The longest time between two creates answered 201 (by when they were answered). */
export function longestGap(answers: Answer[]): number {
  const times = answers
    .filter((a) => (a.kind === 'create' || a.kind === 'sdk-create') && a.status === 201)
    .map((a) => a.answeredAt)
    .sort((a, b) => a - b);
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, (times[i] as number) - (times[i - 1] as number));
  return gap;
}
