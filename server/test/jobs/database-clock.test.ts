import { afterAll, describe, expect, it } from 'vitest';
import { startDatabaseClock } from '../../src/db/database-clock.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 2 });
afterAll(async () => {
  await orm.close();
  await database.drop();
});

describe('the database clock', () => {
  it("reads as Postgres's clock_timestamp() even on a machine whose clock is an hour off", async () => {
    const clock = await startDatabaseClock(orm.em, silentLogger(), () => Date.now() - 3_600_000);
    try {
      for (let i = 0; i < 3; i++) {
        const before = clock.now().getTime();
        const [row] = await orm.em
          .getConnection()
          .execute<{ ms: string }[]>('select extract(epoch from clock_timestamp()) * 1000 as ms');
        const after = clock.now().getTime();
        const database = Number(row?.ms);
        expect(database).toBeGreaterThanOrEqual(before - 5);
        expect(database).toBeLessThanOrEqual(after + 5);
      }
      expect(Math.abs(clock.offsetMs - 3_600_000)).toBeLessThan(50);
    } finally {
      clock.stop();
    }
  });
});
