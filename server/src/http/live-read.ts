import { preferredWaitSeconds } from '@pis/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.ts';
import type { PaymentWaiters } from '../payments/payment-waiters.ts';
import { honoursWait, type WaitingRead, withinWaitAllowance } from '../payments/read-payment.ts';
import type { BudgetSettings } from '../rate-limits/organization-budgets.ts';

/** A request's waiting-read headers (DESIGN.md "Live reads"), for the procedures that honour them. */
export interface LiveReadRequest {
  ifNoneMatch: string | undefined;
  /** `Prefer: wait=N`, capped at MAX_WAIT_SECONDS. */
  waitSeconds: number | undefined;
  /** Aborted when the client goes away before its answer. */
  signal: AbortSignal | undefined;
}

/** The slack a held request's socket gets beyond its wait before its idle timeout may close it. */
const SOCKET_SLACK_MS = 10_000;

/** A wait asked for in a procedure's input rather than in headers (the dashboard's live page). */
export type AskedWait = Pick<LiveReadRequest, 'ifNoneMatch' | 'waitSeconds'>;

/**
 * Reads If-None-Match and Prefer (or takes `asked`, from the input). Only a request that may wait
 * (both present) gets an abort signal and a socket idle timeout long enough for its wait
 * (CONNECTION_TIMEOUT_MS would otherwise cut a 60 s wait at 30 s, unanswered), restored once answered.
 */
export function liveReadRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  connectionTimeoutMs: number,
  asked?: AskedWait,
): LiveReadRequest {
  const header = request.headers['if-none-match'];
  const ifNoneMatch = asked ? asked.ifNoneMatch : Array.isArray(header) ? header.join(',') : header;
  const waitSeconds = asked ? asked.waitSeconds : preferredWaitSeconds(request.headers.prefer);
  if (ifNoneMatch === undefined || waitSeconds === undefined) {
    return { ifNoneMatch, waitSeconds, signal: undefined };
  }
  const held = heldReply(reply, connectionTimeoutMs);
  const socket = request.raw.socket as { setTimeout?: (ms: number) => void } | undefined;
  const needed = waitSeconds * 1000 + SOCKET_SLACK_MS;
  if (socket?.setTimeout && connectionTimeoutMs > 0 && held.socketMs < needed) {
    held.socketMs = needed;
    socket.setTimeout(needed);
  }
  return { ifNoneMatch, waitSeconds, signal: held.closed.signal };
}

/**
 * One abort signal and one restore of the socket timeout per response, however many waiting
 * procedures it answers (a dashboard batch holds up to TRPC_MAX_BATCH_SIZE): a listener per
 * procedure would pass Node's 10 per emitter and warn of a leak.
 */
const heldReplies = new WeakMap<FastifyReply['raw'], { closed: AbortController; socketMs: number }>();

function heldReply(reply: FastifyReply, connectionTimeoutMs: number) {
  let held = heldReplies.get(reply.raw);
  if (held) return held;
  const state = { closed: new AbortController(), socketMs: connectionTimeoutMs };
  held = state;
  heldReplies.set(reply.raw, state);
  // 'close' also follows a normal answer: aborting then is harmless (the wait is over).
  reply.raw.once('close', () => state.closed.abort());
  reply.raw.once('finish', () => {
    if (state.socketMs !== connectionTimeoutMs) reply.raw.socket?.setTimeout(connectionTimeoutMs);
  });
  return state;
}

/** What a request's context (trpc/trpc.ts `Context`) holds for a waiting read. */
interface LiveReadContext {
  services: { waiters: PaymentWaiters };
  config: { rateLimits: RateLimitConfig };
  liveRead(asked?: AskedWait): LiveReadRequest;
  setHeader(name: string, value: string): void;
}

/**
 * The request's waiting-read headers (or, for the dashboard, what its input asks), with this
 * process's waiters (see read-payment.ts), within the caller's organization's allowance of waits.
 */
export const waitingRead = (
  ctx: Omit<LiveReadContext, 'setHeader'>,
  caller: { organizationId: string; budgets: BudgetSettings },
  asked?: AskedWait,
): WaitingRead =>
  withinWaitAllowance(
    { waiters: ctx.services.waiters, ...ctx.liveRead(asked) },
    caller,
    ctx.config.rateLimits,
  );

/**
 * What a read answers besides its body: its ETag, and `Preference-Applied` when the wait was
 * honoured (the capped value), which is how a client learns this server waits.
 */
export function answerLiveRead(
  ctx: Pick<LiveReadContext, 'setHeader'>,
  etag: string,
  wait: WaitingRead,
): void {
  ctx.setHeader('etag', etag);
  if (honoursWait(wait)) ctx.setHeader('preference-applied', `wait=${wait.waitSeconds}`);
}
