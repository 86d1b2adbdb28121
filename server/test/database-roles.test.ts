import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PAYMENT_LIFETIME_MS } from '@pis/shared';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { startBackground } from '../src/lifecycle/background.ts';
import { silentLogger } from '../src/logger.ts';
import { withDatabase } from './global-setup.ts';
import { expectSuccess } from './helpers/expect-envelope.ts';
import { factories } from './helpers/factories.ts';
import { TestClock } from './helpers/test-clock.ts';

/**
 * The Docker deployment's database roles, for real: docker/postgres/init-roles.sh (as the
 * Postgres image runs it on first start) on an empty database, the `migrate` CLI as the owner,
 * then the whole service as `pis_app`, which owns no schema and cannot change one.
 */
const run = promisify(execFile);
const REPO_ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const hasPsql = await run('psql', ['--version']).then(
  () => true,
  () => false,
);

describe.skipIf(!hasPsql)('the service as a database role that owns nothing', async () => {
  const adminUrl = new URL(inject('testDatabaseAdminUrl'));
  const name = `pis_roles_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const secrets = await mkdtemp(path.join(os.tmpdir(), 'pis-secrets-'));
  for (const secret of ['pis_owner_password', 'pis_app_password', 'link_signing_secret']) {
    await writeFile(path.join(secrets, secret), `${randomBytes(24).toString('base64url')}\n`);
  }
  afterAll(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query('drop role if exists pis_owner, pis_app');
    await admin.end();
  });
  const roleUrl = (role: string) => {
    const url = new URL(withDatabase(adminUrl.toString(), name));
    url.username = role;
    url.password = '';
    return url.toString();
  };
  const environment = (role: 'pis_owner' | 'pis_app') => ({
    DATABASE_URL: roleUrl(role),
    DATABASE_PASSWORD_FILE: path.join(secrets, `${role}_password`),
    LINK_SIGNING_SECRET_FILE: path.join(secrets, 'link_signing_secret'),
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: role === 'pis_app' ? 'false' : 'true',
  });

  it('init-roles.sh, then migrate as the owner, then serve and work jobs as pis_app', async () => {
    await run('sh', [path.join(REPO_ROOT, 'docker/postgres/init-roles.sh')], {
      env: {
        PATH: process.env.PATH,
        SECRETS_DIR: secrets,
        POSTGRES_USER: decodeURIComponent(adminUrl.username),
        POSTGRES_DB: name,
        PGHOST: adminUrl.hostname,
        PGPORT: adminUrl.port,
        PGPASSWORD: decodeURIComponent(adminUrl.password),
      },
    });
    await run(process.execPath, ['src/cli/migrate.ts'], {
      cwd: path.join(REPO_ROOT, 'server'),
      env: { PATH: process.env.PATH, ...environment('pis_owner') },
    });

    const config = loadConfig(environment('pis_app'), secrets);
    expect(config.migrateOnStart).toBe(false);
    const database = await openDatabase(config, silentLogger());
    const clock = new TestClock();
    const background = await startBackground({
      config,
      orm: database.orm,
      databaseUrl: database.url,
      clock,
      logger: silentLogger(),
      runWorker: true,
    });
    try {
      const app = await buildApp({ config, orm: database.orm, clock, scheduler: background.scheduler });
      const { headers } = await factories(database.orm, clock).createMerchant();
      const created = expectSuccess<{ paymentId: string }>(
        await app.inject({
          method: 'POST',
          url: '/api/payments',
          headers,
          payload: {
            toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
            amount: { value: '1.00', currency: 'GBP' },
            reference: 'roles',
          },
        }),
        201,
      );
      clock.advance(PAYMENT_LIFETIME_MS);
      // The worker's sweep (as pis_app) expires it: rows and pg-boss tables are writable.
      const status = async () =>
        (
          await database.orm.em
            .getConnection()
            .execute<{ status: string }[]>('select status from payment where id = ?', [created.paymentId])
        )[0]?.status;
      const deadline = Date.now() + 10_000;
      while ((await status()) !== 'EXPIRED' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await status()).toBe('EXPIRED');
      await app.close();

      // ...but it owns nothing and cannot change the schema.
      const connection = database.orm.em.getConnection();
      const owned = await connection.execute<{ nspname: string }[]>(
        `select nspname from pg_namespace where nspowner = (select oid from pg_roles where rolname = current_user)`,
      );
      expect(owned).toEqual([]);
      await expect(connection.execute('create table intruder (id int)')).rejects.toThrow(/permission denied/);
      await expect(connection.execute('drop table payment')).rejects.toThrow(/must be owner/);
    } finally {
      await background.stop();
      await database.close();
    }
  }, 60_000);
});
