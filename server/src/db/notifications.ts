import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * Postgres LISTEN/NOTIFY for the whole process: ONE dedicated connection listens, and an
 * in-memory map fans each notification out to the subscribers of its (channel, key). A waiting
 * read (or a cache) costs a map entry, never a connection. Channels and payloads are written
 * down in docs/decisions/017-live-reads.md; a payload is the key itself (a payment id, a key id).
 *
 * NOTIFY is delivered on commit only (and not at all on rollback), so a subscriber never hears
 * of a change it cannot read yet. A notification sent while the connection was down is lost:
 * on every reconnect, every subscriber is called with `reconnected` and must re-read.
 */
export const CHANNELS = {
  /** Sent by the `payment_notify` trigger on every insert and update of `payment`; key: its id. */
  paymentChanged: 'payment_changed',
  /**
   * Sent by the `api_key_changed` triggers on every change to an API key, an organization or its
   * approved providers; key: the organization's id (auth/api-key-cache.ts drops its keys).
   */
  apiKeyChanged: 'api_key_changed',
} as const;

/** Listen to every key of a channel (a cache that drops everything it holds). */
export const ANY_KEY = '*';

export type NotificationReason = 'notified' | 'reconnected';
export type NotificationCallback = (key: string, reason: NotificationReason) => void;

export interface Notifications {
  /** Calls `callback` for every notification of `key` on `channel` (or every key: ANY_KEY); returns the unsubscribe. */
  subscribe(channel: string, key: string, callback: NotificationCallback): () => void;
  /** Resolves once the connection listens to `channel` (tests and start-up: nothing missed after it). */
  listening(channel: string): Promise<void>;
  /**
   * The listening connection's number while it is up and listening (a new one after every
   * reconnect), undefined while it is down: what was heard under one number says nothing of
   * what happened while there was none.
   */
  connection(): number | undefined;
  /** How many subscriptions are held (the measure of a process's waiters). */
  readonly subscriberCount: number;
  close(): Promise<void>;
}

const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5_000;
/**
 * The connection notifies itself this often, and counts as down when it has not heard itself for
 * HEARD_WITHIN_MS: a half-open socket (the database gone without a word) would otherwise look up
 * for hours, and a cache trusting it would serve what it can no longer hear about.
 */
const HEARTBEAT_MS = 5_000;
const HEARD_WITHIN_MS = 12_000;
const HEARTBEAT_CHANNEL = 'pis_heartbeat';

/** Opens the process's listening connection; reconnects on its own (backoff 0.1 s doubling to 5 s). */
export function startNotifications(options: { databaseUrl: string; logger: Logger }): Notifications {
  const logger = options.logger.child({ component: 'notifications' });
  // channel -> key -> callbacks
  const subscribers = new Map<string, Map<string, Set<NotificationCallback>>>();
  const channels = new Set<string>();
  let count = 0;
  let client: pg.Client | undefined;
  let connections = 0;
  let heardAt = 0;
  /** Drops the current connection and reconnects (set per connection). */
  let dropCurrent: ((error?: Error) => void) | undefined;
  /** Per channel: resolves once the connection listens to it. */
  const listened = new Map<string, Promise<void>>();
  let connected: Promise<pg.Client> | undefined;
  let closed = false;
  let backoffMs = BACKOFF_MIN_MS;
  let retry: NodeJS.Timeout | undefined;

  const deliver = (channel: string, key: string, reason: NotificationReason) => {
    const byKey = subscribers.get(channel);
    if (!byKey) return;
    for (const target of key === ANY_KEY ? [...byKey.keys()] : [key, ANY_KEY]) {
      for (const callback of byKey.get(target) ?? []) {
        try {
          callback(target === ANY_KEY ? key : target, reason);
        } catch (error) {
          logger.error({ err: error, channel }, 'notification subscriber failed');
        }
      }
    }
  };

  const connect = async (reconnecting: boolean): Promise<pg.Client> => {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      keepAlive: true,
      keepAliveInitialDelayMillis: HEARTBEAT_MS,
    });
    next.on('notification', (message) => {
      if (message.channel === HEARTBEAT_CHANNEL) heardAt = performance.now();
      else if (message.payload !== undefined) deliver(message.channel, message.payload, 'notified');
    });
    const lost = (error?: Error) => {
      if (client !== next || closed) return;
      client = undefined;
      connected = undefined;
      logger.warn({ err: error }, 'listening connection lost; reconnecting');
      scheduleReconnect();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    await next.connect();
    for (const channel of [HEARTBEAT_CHANNEL, ...channels]) {
      await next.query(`listen ${next.escapeIdentifier(channel)}`);
    }
    client = next;
    connections += 1;
    heardAt = performance.now();
    dropCurrent = (error) => {
      lost(error);
      next.end().catch(() => {});
    };
    backoffMs = BACKOFF_MIN_MS;
    if (reconnecting) {
      logger.info('listening again; waking every subscriber to re-read');
      for (const channel of channels) deliver(channel, ANY_KEY, 'reconnected');
    }
    return next;
  };

  const scheduleReconnect = () => {
    if (closed || retry) return;
    const delay = backoffMs * (0.5 + Math.random() / 2);
    backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
    retry = setTimeout(() => {
      retry = undefined;
      connected = connect(true);
      connected.catch((error) => {
        logger.warn({ err: error }, 'could not reconnect the listening connection');
        connected = undefined;
        scheduleReconnect();
      });
    }, delay);
    retry.unref();
  };

  const ready = (): Promise<pg.Client> => {
    if (!connected) {
      connected = connect(false);
      connected.catch(() => {
        connected = undefined;
        scheduleReconnect();
      });
    }
    return connected;
  };

  const listening = (channel: string): Promise<void> => {
    if (closed) return Promise.reject(new Error('notifications are closed'));
    let done = listened.get(channel);
    if (!done) {
      channels.add(channel);
      done = (async () => {
        const current = await ready();
        // A connection made after the channel was added listens to it itself.
        if (current !== client) return;
        try {
          await current.query(`listen ${current.escapeIdentifier(channel)}`);
        } catch (error) {
          // Not listening while seeming connected would be the worst of both: start over.
          if (current === client) dropCurrent?.(error as Error);
          throw error;
        }
      })();
      listened.set(channel, done);
      done.catch(() => listened.delete(channel));
    }
    return done.then(() => ready()).then(() => {});
  };

  const heartbeat = setInterval(() => {
    const current = client;
    if (!current) return;
    if (performance.now() - heardAt > HEARD_WITHIN_MS) {
      logger.warn('listening connection silent; reconnecting');
      dropCurrent?.(new Error('heartbeat not heard'));
      return;
    }
    current.query(`select pg_notify('${HEARTBEAT_CHANNEL}', '')`).catch(() => {});
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    subscribe(channel, key, callback) {
      let byKey = subscribers.get(channel);
      if (!byKey) {
        byKey = new Map();
        subscribers.set(channel, byKey);
      }
      let callbacks = byKey.get(key);
      if (!callbacks) {
        callbacks = new Set();
        byKey.set(key, callbacks);
      }
      const keyCallbacks = callbacks;
      const channelKeys = byKey;
      callbacks.add(callback);
      count += 1;
      if (!channels.has(channel)) {
        listening(channel).catch((error) => logger.warn({ err: error, channel }, 'could not listen yet'));
      }
      let done = false;
      return () => {
        if (done) return;
        done = true;
        count -= 1;
        keyCallbacks.delete(callback);
        if (keyCallbacks.size === 0) channelKeys.delete(key);
      };
    },
    listening,
    connection: () => (client && performance.now() - heardAt <= HEARD_WITHIN_MS ? connections : undefined),
    get subscriberCount() {
      return count;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
