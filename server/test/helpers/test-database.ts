import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { withDatabase } from '../global-setup.ts';

/**
 * A database of its own for one test file, cloned from the migrated template (~0.1 s), so
 * files run in parallel without seeing each other's rows.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('testDatabaseAdminUrl');
  const template = inject('testDatabaseTemplate');
  const name = `${template.replace(/_tmpl$/, '')}_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.query(`create database ${name} template ${template}`);
        break;
      } catch (error) {
        // 55006: another file is cloning the template at this instant; it is free again shortly.
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
      }
    }
  } finally {
    await client.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
