import pg from 'pg';
import { startBaseline } from './baseline.ts';
import type { Measured } from './cpu-meter.ts';
import { startService } from './service.ts';
import { median } from './statistics.ts';

/**
 * What each of the product's promises on the payment tables costs a create in Postgres
 * (`npm run bench -- --create-parts`; issue 32 item 2's Postgres goal). The secondary indexes,
 * foreign keys and row insert triggers of `payment` and `payment_history` are read from the
 * catalog and grouped by the promise they keep (PROMISES; a part no pattern names is a group of
 * its own, so a new index shows up by itself). The service's create load is measured without each
 * group in turn, then without all of them, and the floor's create beside them, each right after a
 * load as shipped, for ROUNDS rounds; a figure is the median of the shipped loads plus the median
 * of its differences to the load before it, printed with their spread. Each part is put back from
 * its own definition after its load. Only ever on the bench's throwaway database.
 *
 * The service runs without its worker, and the throwaway cluster without autovacuum meanwhile:
 * with an index gone the worker's sweeps would scan the table, and a vacuum landing in one load
 * (of these tables, or of the request log that grows a row per request) would be charged to
 * whichever part that load was without. Work a create leaves to vacuum is therefore not in these
 * figures (with autovacuum on, two runs put a create without every part at ~0.8x the floor's
 * Postgres rather than ~1.1x). Some loads still pay bulk work alone (a trigram index's pending list
 * is merged by the insert that overflows it; a run's first shipped load has been ~1.6 ms dearer a
 * create): the medians keep one such load from deciding a figure.
 */

const ROUNDS = 3;
/** What a part is for, by its name; the first pattern that matches names its group. */
const PROMISES: [RegExp, string][] = [
  [/trgm|end_to_end|amount/, 'search (trigram, end-to-end id, amount indexes)'],
  [/status_created|provider_created/, 'list filters (status, provider indexes)'],
  [/mode_created/, 'the list, newest first (its index)'],
  [/next_due/, 'due times (sweep, list catch-up indexes)'],
  [/foreign/, 'integrity (foreign keys)'],
  [/count/, 'kept counts (row trigger)'],
];
const TABLES = ['payment', 'payment_history'];

export interface CreatePart {
  /** The promise, and the parts it is made of. */
  name: string;
  parts: string[];
  /** Postgres CPU per answered create without it, µs. */
  postgresMicros: number;
  /** Its differences to the shipped load before it, one per round, µs. */
  differences: number[];
}

export interface CreateParts {
  shipped: number;
  floor: number;
  /** Without each promise, one at a time. */
  promises: CreatePart[];
  /** Without every part at once. */
  none: CreatePart;
}

export interface Removable {
  name: string;
  remove: string;
  restore: string;
}

/** The secondary indexes, foreign keys and row insert triggers of the payment tables. */
export async function removableParts(client: pg.Client): Promise<Removable[]> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i where i.indrelid = any($1::regclass[]) and not i.indisprimary order by 1`,
    [TABLES],
  );
  const { rows: keys } = await client.query<{ name: string; tableName: string; definition: string }>(
    `select c.conname as name, c.conrelid::regclass::text as "tableName", pg_get_constraintdef(c.oid) as definition
       from pg_constraint c where c.contype = 'f' and c.conrelid = any($1::regclass[]) order by 1`,
    [TABLES],
  );
  // tgtype: bit 0 a row trigger, bit 2 fired by insert.
  const { rows: triggers } = await client.query<{ name: string; tableName: string }>(
    `select t.tgname as name, t.tgrelid::regclass::text as "tableName" from pg_trigger t
      where t.tgrelid = any($1::regclass[]) and not t.tgisinternal and t.tgtype & 5 = 5 order by 1`,
    [TABLES],
  );
  return [
    ...indexes.map(({ name, definition }) => ({
      name: `index ${name}`,
      remove: `drop index ${name}`,
      restore: definition,
    })),
    ...keys.map(({ name, tableName, definition }) => ({
      name: `foreign key ${name}`,
      remove: `alter table ${tableName} drop constraint ${name}`,
      restore: `alter table ${tableName} add constraint ${name} ${definition}`,
    })),
    ...triggers.map(({ name, tableName }) => ({
      name: `trigger ${name}`,
      remove: `alter table ${tableName} disable trigger ${name}`,
      restore: `alter table ${tableName} enable trigger ${name}`,
    })),
  ];
}

export async function measureCreateParts(
  measureCreate: (url: string, headers: Record<string, string>) => Promise<Measured>,
  databaseUrl: string,
  floorDatabaseUrl: string,
  dataDir: string,
): Promise<CreateParts> {
  const service = await startService(databaseUrl, dataDir, { runWorker: false });
  const floor = await startBaseline(floorDatabaseUrl, 10);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const serviceUrl = await service.app.listen({ host: '127.0.0.1', port: 0 });
    const floorUrl = await floor.app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { 'x-api-key': service.apiKey };
    const parts = await removableParts(client);
    const groups = new Map<string, Removable[]>();
    for (const part of parts) {
      const promise = PROMISES.find(([pattern]) => pattern.test(part.name))?.[1] ?? part.name;
      groups.set(promise, [...(groups.get(promise) ?? []), part]);
    }
    // Shipped is measured right before each variant, and each variant's difference is taken
    // against that measure: the table grows and the machine drifts during the run, and a variant
    // compared with a shipped figure from minutes away measured the drift.
    const shipped: number[] = [];
    const differences = new Map<string, number[]>();
    const pair = async (name: string, variant: () => Promise<Measured>) => {
      const reference = (await measureCreate(serviceUrl, headers)).postgresMicros;
      shipped.push(reference);
      const measured = (await variant()).postgresMicros;
      differences.set(name, [...(differences.get(name) ?? []), measured - reference]);
    };
    const without = (removed: Removable[]) => async () => {
      for (const part of removed) await client.query(part.remove);
      try {
        return await measureCreate(serviceUrl, headers);
      } finally {
        for (const part of removed) await client.query(part.restore);
      }
    };
    const autovacuum = async (held: boolean) => {
      await client.query(held ? 'alter system set autovacuum = off' : 'alter system reset autovacuum');
      await client.query('select pg_reload_conf()');
    };
    await autovacuum(true);
    try {
      // Past the first thousands of rows: an empty table's first loads cost more per create.
      await measureCreate(serviceUrl, headers);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [promise, removed] of groups) await pair(promise, without(removed));
        await pair('none', without(parts));
        await pair('floor', () => measureCreate(floorUrl, { 'x-api-key': floor.apiKey }));
      }
    } finally {
      await autovacuum(false);
    }
    const typical = median(shipped);
    const result = (name: string, made: Removable[]): CreatePart => {
      const measured = differences.get(name) ?? [];
      return {
        name,
        parts: made.map((part) => part.name),
        postgresMicros: typical + median(measured),
        differences: measured,
      };
    };
    return {
      shipped: typical,
      floor: result('floor', []).postgresMicros,
      promises: [...groups].map(([promise, removed]) => result(promise, removed)),
      none: result('none', parts),
    };
  } finally {
    await client.end();
    await floor.close();
    await service.close();
  }
}

export function printCreateParts({ shipped, floor, promises, none }: CreateParts): void {
  const pad = (text: string, width: number) => text.padEnd(width);
  const change = (micros: number) => `${micros >= 0 ? '+' : ''}${micros.toFixed(0)}`;
  const line = (name: string, micros: number, note = '') =>
    console.log(`${pad(name, 52)}${pad(micros.toFixed(0), 9)}${note}`);
  const against = ({ postgresMicros, differences }: CreatePart) =>
    `${change(postgresMicros - shipped)} µs (${(((postgresMicros - shipped) / shipped) * 100).toFixed(0)}%; ` +
    `rounds ${differences.map(change).join(', ')})`;
  console.log(`\n${pad('a create, Postgres CPU', 52)}${pad('µs/req', 9)}against shipped`);
  line('shipped', shipped, `${(shipped / floor).toFixed(2)}x the floor's`);
  for (const promise of [...promises].sort((a, b) => a.postgresMicros - b.postgresMicros)) {
    line(`without ${promise.name}`, promise.postgresMicros, against(promise));
    console.log(`  ${promise.parts.join(', ')}`);
  }
  line(
    'without all of them',
    none.postgresMicros,
    `${against(none)}; ${(none.postgresMicros / floor).toFixed(2)}x the floor's`,
  );
  line('the floor', floor);
}
