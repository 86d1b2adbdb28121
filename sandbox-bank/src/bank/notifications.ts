import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * Event notifications: on each payment status change, a signed SET (`application/jwt`,
 * `urn:uk:org:openbanking:events:resource-update`) POSTed to the client's callback. A pointer
 * only ("read this payment"), so it carries no status. Retries with exponential backoff (1 s,
 * 2 s, 4 s ... at most 5 min) and gives up after MAX_ATTEMPTS: a dead callback never blocks the bank.
 */
export const RESOURCE_UPDATE = 'urn:uk:org:openbanking:events:resource-update';
const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_S = 300;
const POLL_MS = 250;
const TIMEOUT_MS = 5_000;

export async function enqueueNotification(
  db: pg.PoolClient,
  clientId: string,
  resourceId: string,
  type: string,
) {
  await db.query(
    'insert into event_notifications (client_id, resource_id, resource_type) values ($1, $2, $3)',
    [clientId, resourceId, type],
  );
}

export interface NotifierOptions {
  pool: pg.Pool;
  logger: Logger;
  /** undefined: notifications are off (rows are not even queued). */
  url: string | undefined;
  issuer: string;
  apiBase: string;
  signingKey: CryptoKey | Uint8Array;
  kid: string;
}

export async function eventToken(
  options: NotifierOptions,
  clientId: string,
  resourceId: string,
  type: string,
) {
  const link = `${options.apiBase}/domestic-payments/${resourceId}`;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    txn: randomUUID(),
    toe: now,
    events: {
      [RESOURCE_UPDATE]: {
        subject: {
          subject_type: 'http://openbanking.org.uk/rid_http://openbanking.org.uk/rty',
          'http://openbanking.org.uk/rid': resourceId,
          'http://openbanking.org.uk/rty': type,
          'http://openbanking.org.uk/rlk': [{ version: 'v4.0', link }],
        },
      },
    },
  })
    .setProtectedHeader({ alg: 'PS256', kid: options.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(clientId)
    .setSubject(link)
    .setIssuedAt(now)
    .setJti(randomUUID())
    .sign(options.signingKey);
}

export function startNotifier(options: NotifierOptions): { stop(): Promise<void> } {
  const { pool, logger, url } = options;
  let stopped = false;
  let running: Promise<void> | undefined;

  const deliverOne = async (): Promise<boolean> => {
    const { rows } = await pool.query<{
      id: string;
      client_id: string;
      resource_id: string;
      resource_type: string;
      attempts: number;
    }>(
      `update event_notifications set next_attempt_at = now() + interval '30 seconds'
       where id = (select id from event_notifications where delivered_at is null and given_up_at is null
                   and next_attempt_at <= now() order by id limit 1 for update skip locked)
       returning id, client_id, resource_id, resource_type, attempts`,
    );
    const row = rows[0];
    if (!row || !url) return false;
    let error: string | undefined;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/jwt',
          'x-fapi-financial-id': 'sandbox-bank',
          'x-fapi-interaction-id': randomUUID(),
        },
        body: await eventToken(options, row.client_id, row.resource_id, row.resource_type),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'manual',
      });
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    if (!error) {
      await pool.query(
        'update event_notifications set delivered_at = now(), attempts = attempts + 1 where id = $1',
        [row.id],
      );
    } else {
      const attempts = row.attempts + 1;
      const backoff = Math.min(2 ** (attempts - 1), MAX_BACKOFF_S);
      await pool.query(
        `update event_notifications set attempts = $2::int, last_error = $3::text,
           next_attempt_at = now() + make_interval(secs => $4::int),
           given_up_at = case when $2::int >= $5::int then now() end
         where id = $1`,
        [row.id, attempts, error.slice(0, 500), backoff, MAX_ATTEMPTS],
      );
      logger.info({ resourceId: row.resource_id, attempts, error }, 'event notification not delivered');
    }
    return true;
  };

  const loop = async () => {
    while (!stopped) {
      running = (async () => {
        try {
          while (!stopped && (await deliverOne())) {}
        } catch (error) {
          logger.warn({ err: error }, 'event notification pass failed');
        }
      })();
      await running;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  if (url) void loop();
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
