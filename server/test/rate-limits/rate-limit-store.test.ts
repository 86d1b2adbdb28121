import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Orm, openOrm } from '../../src/db/orm.ts';
import { consumeRateLimit, purgeRateLimitWindows } from '../../src/rate-limits/rate-limit-store.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

let orm: Orm;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  orm = await openOrm(database.url, { poolMax: 4 });
});
afterAll(async () => {
  await orm.close();
  await drop();
});

const at = (iso: string) => new Date(iso);

describe('consumeRateLimit', () => {
  it('allows `limit` hits per window, then refuses until the window resets', async () => {
    const rule = { key: 'test:a', limit: 3, windowSeconds: 60 };
    const now = at('2026-01-15T10:00:15.000Z');
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await consumeRateLimit(orm.em, { ...rule, now }));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
    // Windows are aligned to the minute: 45 s left at :15.
    expect(results[0]).toMatchObject({ limit: 3, resetSeconds: 45 });

    const next = await consumeRateLimit(orm.em, { ...rule, now: at('2026-01-15T10:01:00.000Z') });
    expect(next).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  it('a hit timed in the window before, counted late (a lock wait at the boundary), never restarts the newer window', async () => {
    const rule = { key: 'test:late', limit: 3, windowSeconds: 60 };
    const newer = at('2026-01-15T10:01:00.500Z');
    for (let i = 0; i < 3; i++) await consumeRateLimit(orm.em, { ...rule, now: newer });
    // Timed at 10:00:59.9, it reached the row after the newer window's hits: counted there.
    const late = await consumeRateLimit(orm.em, { ...rule, now: at('2026-01-15T10:00:59.900Z') });
    expect(late.allowed).toBe(false);
    // Its wait is the newer window's, never more than a window.
    expect(late.resetSeconds).toBe(60);
    expect((await consumeRateLimit(orm.em, { ...rule, now: newer })).allowed).toBe(false);
  });

  it('counts keys apart', async () => {
    const now = at('2026-01-15T10:00:00.000Z');
    await consumeRateLimit(orm.em, { key: 'test:b', limit: 1, windowSeconds: 10, now });
    expect(
      (await consumeRateLimit(orm.em, { key: 'test:b', limit: 1, windowSeconds: 10, now })).allowed,
    ).toBe(false);
    expect(
      (await consumeRateLimit(orm.em, { key: 'test:c', limit: 1, windowSeconds: 10, now })).allowed,
    ).toBe(true);
  });

  it('never lets concurrent hits through past the limit (one atomic upsert each)', async () => {
    const now = at('2026-01-15T11:00:00.000Z');
    const rule = { key: 'test:concurrent', limit: 25, windowSeconds: 60, now };
    const results = await Promise.all(Array.from({ length: 60 }, () => consumeRateLimit(orm.em, rule)));
    expect(results.filter((r) => r.allowed)).toHaveLength(25);
    expect(new Set(results.filter((r) => r.allowed).map((r) => r.remaining)).size).toBe(25);
  });

  it("uses the database's clock when no instant is given", async () => {
    const result = await consumeRateLimit(orm.em, { key: 'test:db-clock', limit: 5, windowSeconds: 3600 });
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute<{ seconds: number }[]>(
        `select ceil(3600 - extract(epoch from now())::numeric % 3600)::int as seconds`,
      );
    expect(Math.abs(result.resetSeconds - (row?.seconds ?? -99))).toBeLessThanOrEqual(1);
    expect(result).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('counts a key longer than the column under its hash', async () => {
    const now = at('2026-01-15T10:00:00.000Z');
    const key = `signin:${'a'.repeat(300)}@example.com`;
    await consumeRateLimit(orm.em, { key, limit: 1, windowSeconds: 60, now });
    expect((await consumeRateLimit(orm.em, { key, limit: 1, windowSeconds: 60, now })).allowed).toBe(false);
    expect(
      (await consumeRateLimit(orm.em, { key: `${key}x`, limit: 1, windowSeconds: 60, now })).allowed,
    ).toBe(true);
  });

  it('refuses a window that is not a positive whole number of seconds', async () => {
    await expect(consumeRateLimit(orm.em, { key: 'test:bad', limit: 1, windowSeconds: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('purgeRateLimitWindows', () => {
  it('deletes only windows that have ended', async () => {
    await consumeRateLimit(orm.em, {
      key: 'test:old',
      limit: 1,
      windowSeconds: 60,
      now: at('2026-01-15T09:00:00Z'),
    });
    await consumeRateLimit(orm.em, {
      key: 'test:live',
      limit: 1,
      windowSeconds: 60,
      now: at('2026-01-15T12:00:30Z'),
    });
    await purgeRateLimitWindows(orm.em, at('2026-01-15T12:00:40Z'));
    const keys = (
      await orm.em.fork().getConnection().execute<{ key: string }[]>('select key from rate_limit_window')
    ).map((row) => row.key);
    expect(keys).toContain('test:live');
    expect(keys).not.toContain('test:old');
  });
});
