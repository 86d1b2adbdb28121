import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { loadConfig, REPO_ROOT } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { MIGRATIONS_DIR, migrate, ormConfig } from '../db/orm.ts';
import { createLogger } from '../logger.ts';

/**
 * `npm run -w @pis/server migration:create -- <name>`: writes a migration for the difference
 * between the entities and the committed migrations. It diffs against a scratch database built
 * from the committed migrations (not against your dev database, whose state may have drifted),
 * so no schema snapshot file is needed.
 */
const name = process.argv[2];
if (!name || !/^[a-z][a-z0-9_]*$/.test(name)) {
  process.stderr.write('usage: migration:create <snake_case_name>\n');
  process.exit(2);
}

const config = loadConfig();
const logger = createLogger('warn', 'stderr');
const database = await openDatabase(config, logger, { migrate: false });
const scratchName = `pis_scratch_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: database.url });
await admin.connect();
await admin.query(`create database ${scratchName}`);
const scratchUrl = new URL(database.url);
scratchUrl.pathname = `/${scratchName}`;
try {
  const base = ormConfig(scratchUrl.toString());
  const orm = await MikroORM.init({ ...base, migrations: { ...base.migrations, snapshot: false } });
  try {
    await migrate(orm, scratchUrl.toString());
    const result = await orm.migrator.create(MIGRATIONS_DIR, false, false, name);
    if (!result.fileName) {
      process.stdout.write('No schema changes: nothing written.\n');
    } else {
      const file = path.basename(result.fileName);
      const className = file.replace(/\.ts$/, '');
      // Generated code is not in our house style; format it so `npm run lint` stays green.
      execFileSync(
        path.join(REPO_ROOT, 'node_modules/.bin/biome'),
        ['format', '--write', path.join(MIGRATIONS_DIR, file)],
        {
          stdio: 'ignore',
        },
      );
      process.stdout.write(
        `Wrote ${path.join(MIGRATIONS_DIR, file)}\nAdd to src/db/migrations/index.ts:\n` +
          `  import { ${className} } from './${file}';\n` +
          `  { name: '${className}', class: ${className} },\n`,
      );
    }
  } finally {
    await orm.close();
  }
} finally {
  await admin.query(`drop database if exists ${scratchName}`);
  await admin.end();
  await database.close();
}
