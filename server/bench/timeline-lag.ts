import { type ApprovalTiming, CUSTOMER_ACTOR } from '@pis/shared';
import { type Clock, systemClock } from '../src/clock.ts';
import { ANY_KEY, CHANNELS, startNotifications } from '../src/db/notifications.ts';
import { silentLogger } from '../src/logger.ts';
import { approveAtMockBank } from '../src/payments/mock-bank-decisions.ts';
import type { PaymentsDeps } from '../src/payments/payments-deps.ts';
import { mockProviderRegistry } from '../src/providers/default-providers.ts';
import type { Service } from './service.ts';
import { percentile } from './statistics.ts';

export interface LagResult {
  timelines: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Samples whose step had not been applied when read (counted as missing, not as lag). */
  missing: number;
  /**
   * When each step became visible to others: its commit's `payment_changed` notification, heard
   * by a listener in this process, minus the due time (p99 and max).
   */
  visibleP99Ms: number;
  visibleMaxMs: number;
}

const COMPLETE_AFTER_SECONDS = 10;
/** Steps of a 10 s timeline after AUTHORIZED: SUBMITTED at 1 s, ACCEPTED at 4 s, COMPLETED at 10 s. */
const STEPS = [
  { atSeconds: 1, status: 'SUBMITTED', readAtSeconds: 3.5 },
  { atSeconds: 4, status: 'ACCEPTED', readAtSeconds: 9.5 },
  { atSeconds: 10, status: 'COMPLETED', readAtSeconds: 12.5 },
];

/**
 * Timelines whose steps fall due at the same instants. Every payment is approved "at" one
 * instant T0 a few seconds ahead (a fixed clock for the approvals only), so its steps are due at
 * T0+1 s, T0+4 s and T0+10 s: three bursts through pg-boss and the worker on real time.
 * Lag = when the worker took the step (`updated_at`: the instant it held the payment's row)
 * minus when it was due; read from the table between steps, so no reader catches anything up.
 * Visible = when its commit's notification was heard, minus when it was due: what a waiting
 * reader sees. (History entries carry the due instant itself either way.)
 */
export async function measureTimelineLag(
  service: Service,
  paymentIds: string[],
  warmUpIds: string[],
): Promise<LagResult> {
  const deps = (clock: Clock): PaymentsDeps => ({
    em: service.database.orm.em,
    clock,
    config: service.config,
    providers: mockProviderRegistry(service.config),
    scheduler: service.background.scheduler,
    logger: service.app.log as PaymentsDeps['logger'],
  });
  // The approvals must all be in before the first step is due: time a few to pick T0.
  const warmUpStarted = Date.now();
  // Instant: the warm-up payments complete at once and leave no timeline behind.
  await approveAll(deps(systemClock), warmUpIds, { preset: 'instant' });
  const perApprovalMs = (Date.now() - warmUpStarted) / warmUpIds.length;
  const t0 = Date.now() + Math.ceil(perApprovalMs * paymentIds.length * 1.5) + 1_000;
  await approveAll(deps({ now: () => new Date(t0) }), paymentIds, {
    completeAfterSeconds: COMPLETE_AFTER_SECONDS,
  });
  if (Date.now() > t0) throw new Error('the approvals took longer than planned; the lag would include them');
  // Commits, as any listener hears them (after the approvals: those are not steps).
  const heardAt = new Map<string, number[]>();
  const listener = startNotifications({ databaseUrl: service.database.url, logger: silentLogger() });
  await listener.listening(CHANNELS.paymentChanged);
  listener.subscribe(CHANNELS.paymentChanged, ANY_KEY, (paymentId) => {
    const times = heardAt.get(paymentId);
    if (times) times.push(Date.now());
    else heardAt.set(paymentId, [Date.now()]);
  });

  const lags: number[] = [];
  const visible: number[] = [];
  let missing = 0;
  for (const step of STEPS) {
    await sleepUntil(t0 + step.readAtSeconds * 1000);
    // One array parameter on the pool itself: the ORM inlines every id of `in (?)` into the
    // text, which for 10,000 ids held this process's event loop (and its worker) for seconds.
    const pool = await service.database.orm.em.getConnection().getNativeClient();
    const { rows } = await pool.query<{ status: string; updated_at: Date }>(
      'select status, updated_at from payment where id = any($1::text[])',
      [paymentIds],
    );
    const dueAt = t0 + step.atSeconds * 1000;
    for (const row of rows) {
      if (row.status === step.status) lags.push(new Date(row.updated_at).getTime() - dueAt);
      else missing++;
    }
    for (const paymentId of paymentIds) {
      const heard = heardAt.get(paymentId)?.find((time) => time >= dueAt);
      if (heard !== undefined) visible.push(heard - dueAt);
    }
  }
  await listener.close();
  return {
    timelines: paymentIds.length,
    samples: lags.length,
    p50Ms: percentile(lags, 0.5),
    p99Ms: percentile(lags, 0.99),
    maxMs: percentile(lags, 1),
    missing,
    visibleP99Ms: percentile(visible, 0.99),
    visibleMaxMs: percentile(visible, 1),
  };
}

/** 8 at a time, as a busy API would approve them. */
async function approveAll(deps: PaymentsDeps, paymentIds: string[], timing: ApprovalTiming): Promise<void> {
  const queue = [...paymentIds];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let paymentId = queue.pop(); paymentId; paymentId = queue.pop()) {
        await approveAtMockBank(deps, { paymentId }, timing, CUSTOMER_ACTOR);
      }
    }),
  );
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
