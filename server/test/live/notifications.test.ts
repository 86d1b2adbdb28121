import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import {
  ANY_KEY,
  CHANNELS,
  type NotificationReason,
  startNotifications,
} from '../../src/db/notifications.ts';
import { silentLogger } from '../../src/logger.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created } from '../payments/payment-fixtures.ts';

const { app, factories, orm, databaseUrl } = await createTestApp();
const { headers } = await factories.createMerchant();
const notifications = startNotifications({ databaseUrl, logger: silentLogger() });
afterAll(() => notifications.close());

/** The next call of a subscription, as a promise (rejects after `ms`). */
function next(channel: string, key: string, ms = 2_000) {
  return new Promise<{ key: string; reason: NotificationReason }>((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`nothing on ${channel}/${key} within ${ms} ms`));
    }, ms);
    const unsubscribe = notifications.subscribe(channel, key, (heard, reason) => {
      clearTimeout(timer);
      unsubscribe();
      resolve({ key: heard, reason });
    });
  });
}

test('a payment changed by any path notifies its id on commit (the trigger); a new one does not', async () => {
  await notifications.listening(CHANNELS.paymentChanged);
  const heardOnCreate: string[] = [];
  const unsubscribeAll = notifications.subscribe(CHANNELS.paymentChanged, ANY_KEY, (key) =>
    heardOnCreate.push(key),
  );
  const payment = await created(app, headers);
  // Nobody can be waiting on a payment that did not exist: the insert notifies no one.
  const cancelled = next(CHANNELS.paymentChanged, payment.paymentId);
  const cancel = await app.inject({
    method: 'POST',
    url: `/api/payments/${payment.paymentId}/cancel`,
    headers,
  });
  expect(cancel.statusCode).toBe(200);
  expect(await cancelled).toEqual({ key: payment.paymentId, reason: 'notified' });
  unsubscribeAll();
  // The one notification heard is the cancel's (delivered in commit order, the create's first).
  expect(heardOnCreate).toEqual([payment.paymentId]);

  // A write that bypasses the service entirely (an operator's SQL) notifies too.
  const heard = next(CHANNELS.paymentChanged, payment.paymentId);
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query(`update payment set updated_at = now() where id = $1`, [payment.paymentId]);
  await other.end();
  expect(await heard).toEqual({ key: payment.paymentId, reason: 'notified' });
  expect(notifications.subscriberCount).toBe(0);
});

test('a change is notified on commit, never on rollback (the api_key_changed trigger)', async () => {
  await notifications.listening(CHANNELS.apiKeyChanged);
  const merchant = await factories.createMerchant();
  const received: string[] = [];
  const unsubscribe = notifications.subscribe(CHANNELS.apiKeyChanged, ANY_KEY, (key) => received.push(key));
  const revoke = (em: typeof orm.em) =>
    em.execute('update api_key set revoked_at = now() where id = ?', [merchant.apiKeyId]);
  await orm.em
    .fork()
    .transactional(async (em) => {
      await revoke(em);
      throw new Error('roll back');
    })
    .catch(() => {});
  const committed = next(CHANNELS.apiKeyChanged, merchant.organizationId);
  await orm.em.fork().transactional(async (em) => {
    await revoke(em);
    // Not yet: the transaction is still open.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toEqual([]);
  });
  await committed;
  expect(received).toEqual([merchant.organizationId]);
  unsubscribe();
});

test('listening() resolves only once the channel is listened to, even after a subscribe started it', async () => {
  await notifications.listening(CHANNELS.paymentChanged);
  const channel = 'pis_test_late_channel';
  const heard = new Promise<string>((resolve) => {
    // subscribe() starts the LISTEN without waiting; listening() must wait for that same LISTEN.
    notifications.subscribe(channel, ANY_KEY, (key) => resolve(key));
  });
  await notifications.listening(channel);
  // At once, on a connection already open: a LISTEN still in flight would miss it.
  await orm.em.getConnection().execute(`select pg_notify(?, 'first')`, [channel]);
  expect(await heard).toBe('first');
});

test('a lost listening connection reconnects and wakes every subscriber to re-read', async () => {
  await notifications.listening(CHANNELS.paymentChanged);
  const woken = next(CHANNELS.paymentChanged, 'pay_someone', 5_000);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and (query ilike 'listen%' or query ilike '%pis_heartbeat%') and pid <> pg_backend_pid()`,
  );
  await admin.end();
  expect(await woken).toEqual({ key: 'pay_someone', reason: 'reconnected' });
  // And it listens again.
  const { paymentId } = await created(app, headers);
  const payment = next(CHANNELS.paymentChanged, paymentId);
  await app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers });
  expect((await payment).key).toBe(paymentId);
});
