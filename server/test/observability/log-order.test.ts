import { afterAll, describe, expect, it } from 'vitest';
import { openOrm } from '../../src/db/orm.ts';
import { listAuditLog, searchRequestLog } from '../../src/observability/logs.ts';
import { createOrganization } from '../../src/organizations/organization-admin.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

/**
 * Issue 34 item 2: both logs list newest first by the numbers, not by their text (ordered by
 * `id::text`, entry 9 came before 15 and 10, while the cursor compared numbers and skipped).
 * Entries with ids 9, 10 and 15, in a database of their own so the ids are free.
 */

const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 2 });
afterAll(async () => {
  await orm.close();
  await database.drop();
});

const { organizationId } = await createOrganization(orm.em.fork(), 'Ordered Shop', new TestClock());
const other = await createOrganization(orm.em.fork(), 'Other Shop', new TestClock());
const at = (second: number) => new Date(Date.UTC(2026, 10, 28, 9, 0, second)).toISOString();
// id -> second: time order and id order agree, but for 12, logged at 10's instant (ties go by id).
const ENTRIES: [number, number][] = [
  [9, 1],
  [10, 2],
  [12, 2],
  [15, 3],
];

await orm.em.getConnection().execute(
  `insert into request_log (id, organization_id, at, method, route, status, duration_ms, request_id)
   overriding system value
   select e.id, ?, e.at, 'GET', '/api/payments', 200, 1, 'req_' || e.id
   from json_to_recordset(?::json) as e(id bigint, at timestamptz)`,
  [organizationId, JSON.stringify(ENTRIES.map(([id, second]) => ({ id, at: at(second) })))],
);
await orm.em.getConnection().execute(
  `insert into audit_log (id, organization_id, at, actor_type, actor, action)
   overriding system value
   select e.id, ?, e.at, 'user', 'owner@shop.example', 'api_key.created'
   from json_to_recordset(?::json) as e(id bigint, at timestamptz)`,
  [organizationId, JSON.stringify(ENTRIES.map(([id, second]) => ({ id, at: at(second) })))],
);
// Another organization's entry, newer than all: never listed, and useless as a cursor.
await orm.em.getConnection().execute(
  `insert into audit_log (id, organization_id, at, actor_type, actor, action) overriding system value
     values (11, ?, ?, 'user', 'x@other.example', 'api_key.created')`,
  [other.organizationId, at(9)],
);

type Lister = (
  before: string | undefined,
  limit: number,
) => Promise<{ entries: { id: string }[]; nextBefore: string | null }>;
const LOGS: [string, Lister][] = [
  ['request log', (before, limit) => searchRequestLog(orm.em.fork(), organizationId, { before, limit })],
  ['audit log', (before, limit) => listAuditLog(orm.em.fork(), organizationId, { before, limit })],
];

describe.each(LOGS)('the %s', (_name, list) => {
  it('lists 15, 12, 10, 9: newest first, by number', async () => {
    const page = await list(undefined, 10);
    expect(page.entries.map((entry) => entry.id)).toEqual(['15', '12', '10', '9']);
    expect(page.nextBefore).toBeNull();
  });

  it.each([1, 2, 3])('pages of %i neither skip nor repeat an entry', async (limit) => {
    const seen: string[] = [];
    let before: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await list(before, limit);
      seen.push(...page.entries.map((entry) => entry.id));
      if (!page.nextBefore) break;
      before = page.nextBefore;
    }
    expect(seen).toEqual(['15', '12', '10', '9']);
  });

  it('another organization’s entry is no cursor', async () => {
    expect((await list('11', 10)).entries).toEqual([]);
  });
});
