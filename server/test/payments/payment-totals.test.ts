import { PAYMENT_STATUSES } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { outcomeKeys } from '../../src/db/migrations/Migration20261125174000_payment_day_outcome.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, HOUR, paymentBody, post, SECOND } from './payment-fixtures.ts';

// `total` of GET /api/payments comes from counts a trigger keeps in each writing transaction
// (payment_count), and the dashboard overview's volume likewise (payment_day_volume). Here every
// way a payment is written moves them, and after each both must equal counting the rows
// themselves, for every filter the list allows.

const { app, orm, factories, clock } = await createTestApp();
const merchant = await factories.createMerchant();
const other = await factories.createMerchant();
const { headers } = merchant;

const listTotal = async (query: string, as = headers) =>
  expectSuccess<{ total: number }>(
    await app.inject({ method: 'GET', url: `/api/payments?${query}`, headers: as }),
  ).total;

/** count(*) per (organization, status, provider) against the kept counts, every key. */
async function expectCountsExact() {
  // A list first catches up whatever fell due, so count after that.
  for (const { headers: as } of [merchant, other]) await listTotal('', as);
  const connection = orm.em.getConnection();
  const counted = await connection.execute<{ key: string; n: string }[]>(
    `select organization_id || '/' || status || '/' || provider as key, count(*)::text as n
       from payment group by 1 order by 1`,
  );
  const kept = await connection.execute<{ key: string; n: string }[]>(
    `select organization_id || '/' || status || '/' || provider as key, sum(count)::text as n
       from payment_count group by 1 having sum(count) <> 0 order by 1`,
  );
  expect(kept).toEqual(counted);
  // The overview's volume (payment_day_volume) likewise: COMPLETED per creation day and currency.
  const completed = await connection.execute<{ key: string; n: string; value: string }[]>(
    `select organization_id || '/' || (created_at at time zone 'UTC')::date || '/' || currency as key,
       count(*)::text as n, trim_scale(sum(amount_value))::text as value
       from payment where status = 'COMPLETED' group by 1 order by 1`,
  );
  const keptVolume = await connection.execute<{ key: string; n: string; value: string }[]>(
    `select organization_id || '/' || day || '/' || currency as key, sum(count)::text as n, trim_scale(sum(value))::text as value
       from payment_day_volume group by 1 having sum(count) <> 0 order by 1`,
  );
  expect(keptVolume).toEqual(completed);
  // ...and the overview's outcomes (payment_day_outcome): finished payments by day, kind and key.
  const outcomes = await connection.execute<{ key: string; n: string }[]>(
    `select organization_id || '/' || day || '/' || kind || '/' || key as key, sum(delta)::text as n
       from (${outcomeKeys('payment', 1)}) keys group by 1 order by 1`,
  );
  const keptOutcomes = await connection.execute<{ key: string; n: string }[]>(
    `select organization_id || '/' || day || '/' || kind || '/' || key as key, sum(count)::text as n
       from payment_day_outcome group by 1 having sum(count) <> 0 order by 1`,
  );
  expect(keptOutcomes).toEqual(outcomes);
  // ...and the list reports them, for every filter it has.
  for (const { organizationId, headers: as } of [merchant, other]) {
    const rows = counted.filter((row) => row.key.startsWith(`${organizationId}/`));
    const sum = (match: (status: string, provider: string) => boolean) =>
      rows
        .filter((row) => {
          const [, status, provider] = row.key.split('/');
          return match(status as string, provider as string);
        })
        .reduce((total, row) => total + Number(row.n), 0);
    expect(await listTotal('', as)).toBe(sum(() => true));
    expect(await listTotal('provider=mock', as)).toBe(sum((_, provider) => provider === 'mock'));
    for (const status of PAYMENT_STATUSES) {
      expect(await listTotal(`status=${status}`, as), status).toBe(sum((s) => s === status));
      expect(await listTotal(`status=${status}&provider=mock`, as)).toBe(
        sum((s, provider) => s === status && provider === 'mock'),
      );
    }
  }
}

describe('list totals stay exact', () => {
  test('after creates in every flow', async () => {
    for (let i = 0; i < 3; i++) await created(app, headers);
    await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    await created(app, other.headers);
    await expectCountsExact();
  });

  test('after every kind of transition: approval, timed steps, rejection, cancel, expiry', async () => {
    const instant = (await created(app, headers)).paymentId;
    const realistic = (await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } })))
      .paymentId;
    const rejected = (await created(app, headers)).paymentId;
    const cancelled = (await created(app, headers)).paymentId;
    const expiring = (await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }))).paymentId;
    expectSuccess(await post(app, headers, `/api/payments/${instant}/mock-bank/approve`, {}));
    expectSuccess(await post(app, headers, `/api/payments/${realistic}/mock-bank/approve`, {}));
    await expectCountsExact();
    expectSuccess(await post(app, headers, `/api/payments/${rejected}/mock-bank/reject`, {}));
    expectSuccess(await post(app, headers, `/api/payments/${cancelled}/cancel`));
    await expectCountsExact();
    // Timed steps, applied by the list's catch-up.
    clock.advance(20 * SECOND);
    await expectCountsExact();
    clock.advance(60 * SECOND);
    await expectCountsExact();
    // Everything still unfinished expires.
    clock.advance(25 * HOUR);
    expect(await listTotal('status=EXPIRED')).toBeGreaterThan(0);
    await expectCountsExact();
    expect(
      expectSuccess<{ status: string }>(
        await app.inject({ method: 'GET', url: `/api/payments/${expiring}`, headers }),
      ).status,
    ).toBe('EXPIRED');
  });

  test('a payment inserted already finished (a restore, an import) is counted as one that finished here', async () => {
    const finished = (await created(app, headers)).paymentId;
    expectSuccess(await post(app, headers, `/api/payments/${finished}/mock-bank/approve`, {}));
    clock.advance(2 * HOUR);
    await expectCountsExact();
    const connection = orm.em.getConnection();
    for (const copy of ['pay_restoredCompleted000001', 'pay_restoredCompleted000002']) {
      await connection.execute(
        `insert into payment select (jsonb_populate_record(p, jsonb_build_object('id', ?::text))).*
           from payment p where p.id = ?`,
        [copy, finished],
      );
    }
    expect(await listTotal('status=COMPLETED')).toBeGreaterThanOrEqual(3);
    await expectCountsExact();
  });

  test('under concurrent writers: creates and cancels racing on one organization', async () => {
    const ids = await Promise.all(
      Array.from({ length: 30 }, () => created(app, headers).then((p) => p.paymentId)),
    );
    await Promise.all([
      ...ids.slice(0, 15).map((id) => post(app, headers, `/api/payments/${id}/cancel`)),
      ...ids.slice(10, 20).map((id) => post(app, headers, `/api/payments/${id}/mock-bank/approve`, {})),
      ...Array.from({ length: 10 }, () => created(app, headers)),
    ]);
    await expectCountsExact();
  });
});
