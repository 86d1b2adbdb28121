import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { prepareCommand, UsageError } from '../src/cli/admin-commands.ts';
import { systemClock } from '../src/clock.ts';
import { REPO_ROOT } from '../src/config.ts';
import { ApiKey, Organization, OrganizationProvider } from '../src/db/entities/index.ts';
import {
  approveProvider,
  createOrganization,
  setOrganizationActive,
} from '../src/organizations/organization-admin.ts';
import { adminCli, oneJsonLine } from './helpers/admin-cli.ts';
import { expectFailure, expectSuccess } from './helpers/expect-envelope.ts';
import { createTestApp } from './helpers/test-app.ts';

const { app, orm, databaseUrl } = await createTestApp();
const { admin, env } = adminCli(databaseUrl);
const run = promisify(execFile);

const counts = async () => {
  const em = orm.em.fork();
  return {
    organizations: await em.count(Organization, {}),
    keys: await em.count(ApiKey, {}),
    approvals: await em.count(OrganizationProvider, {}),
  };
};

// These compare row counts before and after, so they run one at a time.
describe('operator CLI: refusals change nothing', () => {
  test.each([
    [[], 'a command is required'],
    [['org:delete'], 'unknown command'],
    [['org:create'], '--name is required'],
    [['org:create', '--name'], 'argument missing'],
    [['org:create', '--name', '   '], '--name'],
    [['org:create', '--name', 'x', '--colour', 'red'], "Unknown option '--colour'"],
    [['org:create', '--name', 'x', 'extra'], 'positional'],
    [['org:set-active', '--org', 'org_x'], '--active is required'],
    [['org:set-active', '--org', 'org_x', '--active', 'yes'], '--active'],
    [['org:approve-provider', '--org', 'org_x', '--provider', 'Bad Code!'], '--provider'],
    [['org:approve-provider', '--org', 'org_x', '--provider', 'p'.repeat(51)], '--provider'],
    [['key:create', '--org', 'org_x', '--permissions', 'admin'], '--permissions'],
    [['key:create', '--org', 'org_x', '--permissions', 'read', '--mode', 'prod'], '--mode'],
    [['key:create', '--org', 'org_x', '--permissions', ''], '--permissions'],
    [['key:create', '--org', 'org_x', '--permissions', 'read', '--expires-at', 'tomorrow'], '--expires-at'],
    [['key:revoke'], '--key is required'],
  ])('bad arguments %j are refused before any database work', (args, message) => {
    expect(() => prepareCommand(args, systemClock)).toThrow(UsageError);
    expect(() => prepareCommand(args, systemClock)).toThrow(message);
  });

  test('an expiry in the past is allowed: it makes an already-expired key to test a 401 with', () => {
    const args = [
      'key:create',
      '--org',
      'org_x',
      '--permissions',
      'read',
      '--expires-at',
      '2001-01-01T00:00:00Z',
    ];
    expect(() => prepareCommand(args, systemClock)).not.toThrow();
  });

  test('a bad command line: exit 2, message and usage on stderr, nothing on stdout, nothing changed', async () => {
    const before = await counts();
    for (const args of [
      ['org:create', '--name', 'x', '--colour', 'red'],
      ['key:create', '--org', 'org_x', '--permissions', 'admin'],
    ]) {
      const result = await admin(...args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toContain('Usage: npm run -s admin --');
    }
    expect(await counts()).toEqual(before);
  });

  test.each([
    [['key:create', '--org', 'org_missing', '--permissions', 'read'], 'Organization not found'],
    [['key:revoke', '--key', 'key_missing'], 'API key not found'],
  ])('unknown organization or key %j -> exit 2, nothing changed', async (args, message) => {
    const before = await counts();
    const result = await admin(...args);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
    expect(await counts()).toEqual(before);
  });

  test('approving mock stores nothing; approving twice is idempotent; unknown organizations are refused', async () => {
    const clock = systemClock;
    const { organizationId } = await createOrganization(orm.em.fork(), 'Approvals', clock);
    const before = await counts();
    await approveProvider(orm.em.fork(), organizationId, 'mock', clock);
    expect(await counts()).toEqual(before);
    await approveProvider(orm.em.fork(), organizationId, 'acme', clock);
    await approveProvider(orm.em.fork(), organizationId, 'acme', clock);
    expect((await counts()).approvals).toBe(before.approvals + 1);
    for (const action of [
      () => approveProvider(orm.em.fork(), 'org_missing', 'acme', clock),
      () => setOrganizationActive(orm.em.fork(), 'org_missing', false),
    ]) {
      await expect(action()).rejects.toMatchObject({
        kind: 'NOT_FOUND',
        message: 'Organization not found: org_missing',
      });
    }
    expect((await counts()).approvals).toBe(before.approvals + 1);
  });
});

// Each spawn costs a Node start (~1 s, several while the other test files run): independent
// ones run side by side, each test with a longer budget.
describe.concurrent('operator CLI as a process', { timeout: 60_000 }, () => {
  test('npm run -s admin -- org:create (from the repo root) prints only {"organizationId"} on stdout', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'admin', '--', 'org:create', '--name', 'Via npm'], {
      env,
      cwd: REPO_ROOT,
    });
    expect(stdout).toMatch(/^\{"organizationId":"org_[0-9A-Za-z]{24}"\}\n$/);
  });
  test('the whole flow: create, key, use, approve, deactivate, revoke', async () => {
    const { organizationId } = oneJsonLine(await admin('org:create', '--name', 'Ünïcode Café Ltd'));
    expect(organizationId).toMatch(/^org_/);

    const key = oneJsonLine(
      await admin('key:create', '--org', String(organizationId), '--permissions', 'read,write'),
    );
    expect(Object.keys(key).sort()).toEqual(['apiKey', 'apiKeyId', 'mode']);
    expect(key).toMatchObject({ mode: 'test', apiKey: expect.stringMatching(/^pis_test_/) });
    const headers = { 'x-api-key': String(key.apiKey) };
    expectSuccess(await app.inject({ method: 'GET', url: '/api/banks', headers }));

    expect(
      oneJsonLine(
        await admin('org:approve-provider', '--org', String(organizationId), '--provider', 'acme-2'),
      ),
    ).toEqual({
      organizationId,
      provider: 'acme-2',
    });
    // Approved for a real provider: a live key may be made now (refused before, see the unit test).
    const liveKey = oneJsonLine(
      await admin('key:create', '--org', String(organizationId), '--permissions', 'read', '--mode', 'live'),
    );
    expect(liveKey).toMatchObject({ mode: 'live', apiKey: expect.stringMatching(/^pis_live_/) });

    expect(
      oneJsonLine(await admin('org:set-active', '--org', String(organizationId), '--active', 'false')),
    ).toEqual({
      organizationId,
      active: false,
    });
    expectFailure(await app.inject({ method: 'GET', url: '/api/banks', headers }), 403);
    oneJsonLine(await admin('org:set-active', '--org', String(organizationId), '--active', 'true'));
    expectSuccess(await app.inject({ method: 'GET', url: '/api/banks', headers }));

    expect(oneJsonLine(await admin('key:revoke', '--key', String(key.apiKeyId)))).toEqual({
      apiKeyId: key.apiKeyId,
      revoked: true,
    });
    expect(expectFailure(await app.inject({ method: 'GET', url: '/api/banks', headers }), 401).message).toBe(
      'Invalid API key',
    );
  });

  test('key:create with read only, and with an expiry', async () => {
    const { organizationId } = oneJsonLine(await admin('org:create', '--name', 'Expiring'));
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const { apiKeyId } = oneJsonLine(
      await admin(
        'key:create',
        '--org',
        String(organizationId),
        '--permissions',
        'read',
        '--expires-at',
        soon,
      ),
    );
    const row = await orm.em.fork().findOneOrFail(ApiKey, { id: String(apiKeyId) });
    expect(row).toMatchObject({ canRead: true, canWrite: false });
    expect(row.expiresAt?.toISOString()).toBe(soon);
  });

  test('help prints the usage on stdout with exit 0', async () => {
    const result = await admin('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('key:create --org ID --permissions read|write|read,write');
  });
});

describe('operator CLI: org:set-return-origins', () => {
  test("sets, normalises and clears an organization's allowed return origins; bad origins exit 2 and change nothing", async () => {
    const { organizationId } = await createOrganization(orm.em.fork(), 'Origins Ltd', systemClock);
    const stored = async () =>
      (await orm.em.fork().findOneOrFail(Organization, { id: organizationId })).allowedReturnOrigins;

    const set = oneJsonLine(
      await admin(
        'org:set-return-origins',
        '--org',
        organizationId,
        '--origins',
        'https://a.example, http://localhost:8080/,https://a.example',
      ),
    );
    expect(set).toEqual({
      organizationId,
      allowedReturnOrigins: ['https://a.example', 'http://localhost:8080'],
    });
    expect(await stored()).toEqual(['https://a.example', 'http://localhost:8080']);

    const refused = await admin(
      'org:set-return-origins',
      '--org',
      organizationId,
      '--origins',
      'https://b.example/path,ftp://c.example',
    );
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('origins.0: must be an origin such as https://shop.example');
    expect(refused.stderr).toContain('origins.1');
    expect(await stored()).toEqual(['https://a.example', 'http://localhost:8080']);

    expect(
      oneJsonLine(await admin('org:set-return-origins', '--org', organizationId, '--origins', '')),
    ).toEqual({
      organizationId,
      allowedReturnOrigins: [],
    });
    expect(await stored()).toBeNull();
    expect(() => prepareCommand(['org:set-return-origins', '--org', 'org_x'], systemClock)).toThrow(
      '--origins is required',
    );
  });
});
