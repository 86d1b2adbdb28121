import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from './helpers/test-app.ts';

// Issue 14 item 7: what merchants' tools make of the served document. A client generated with
// openapi-typescript + openapi-fetch compiles under `strict` and runs a payment's lifecycle
// against the real server; Redocly (recommended) and Spectral (spectral:oas) find nothing.

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');
const bin = (name: string) => path.join(repoRoot, 'node_modules/.bin', name);
// The CLIs' shebang would pick whatever `node` is first on PATH; run them on ours.
const cli = (name: string, args: string[], cwd: string) =>
  run(process.execPath, [bin(name), ...args], {
    cwd,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 20 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
    stdout: error.stdout ?? '',
    stderr: `${error.stderr ?? ''} (exit ${error.code})`,
  }));

// A production-like address: the linters rightly flag example.com and localhost servers.
const { app, factories } = await createTestApp({ config: { publicBaseUrl: 'https://payments.pis.test' } });
const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
const workDir = await mkdtemp(path.join(os.tmpdir(), 'pis-openapi-'));
await writeFile(path.join(workDir, 'openapi.json'), JSON.stringify(document, null, 2));
afterAll(() => rm(workDir, { recursive: true, force: true }));

describe('linters', () => {
  it("Redocly's recommended rules: no errors, no warnings", { timeout: 120_000 }, async () => {
    // Examples are checked against their schemas as the contract reads them: unknown fields are
    // ignored, not refused, so the rule must not treat the schemas as closed (it would also fail
    // every example of an amount, whose decimals rule is an if/then per currency).
    await writeFile(
      path.join(workDir, 'redocly.yaml'),
      'rules:\n  no-invalid-media-type-examples:\n    severity: error\n    allowAdditionalProperties: true\n',
    );
    const { stdout, stderr } = await cli(
      'redocly',
      ['lint', 'openapi.json', '--extends=recommended', '--format=json'],
      workDir,
    );
    const report = JSON.parse(stdout || '{}') as {
      totals?: { errors: number; warnings: number };
      problems?: { ruleId: string; message: string }[];
    };
    expect(report.totals, stderr).toBeDefined();
    expect(report.problems?.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("Spectral's spectral:oas ruleset: no errors, no warnings", { timeout: 120_000 }, async () => {
    await writeFile(path.join(workDir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
    const { stdout, stderr } = await cli(
      'spectral',
      [
        'lint',
        'openapi.json',
        '--ruleset',
        '.spectral.yaml',
        '--format',
        'json',
        '--output',
        'spectral.json',
      ],
      workDir,
    );
    const report = await readFile(path.join(workDir, 'spectral.json'), 'utf8').catch(() => '');
    expect(report, `${stdout}${stderr}`).not.toBe('');
    const results = JSON.parse(report) as {
      code: string;
      message: string;
      path: string[];
    }[];
    expect(results.map((result) => `${result.code}: ${result.message} (${result.path.join('.')})`)).toEqual(
      [],
    );
  });
});

const CLIENT = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type ErrorCode = components['schemas']['ErrorCode'];
type PaymentStatus = components['schemas']['PaymentStatus'];
declare const process: { env: Record<string, string | undefined> };

const client = createClient<paths>({
  baseUrl: process.env.PIS_API_URL ?? '',
  headers: { 'x-api-key': process.env.PIS_API_KEY ?? '' },
});

const created = await client.POST('/payments', {
  params: { header: { 'idempotency-key': 'generated-client-1' } },
  body: {
    toAccount: { accountName: 'Acme Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    amount: { value: '12.34', currency: 'GBP' },
    reference: 'Generated client',
    redirectUrl: 'https://shop.example/return?order=1',
  },
});
if (!created.data) throw new Error('create failed: ' + JSON.stringify(created.error));
const paymentId: string = created.data.data.paymentId;

const read = await client.GET('/payments/{paymentId}', { params: { path: { paymentId } } });
if (!read.data) throw new Error('get failed');
const status: PaymentStatus = read.data.data.status;

const page = await client.GET('/payments', { params: { query: { limit: 10, status: 'AUTHORIZING' } } });
if (!page.data) throw new Error('list failed');

const cancelled = await client.POST('/payments/{paymentId}/cancel', { params: { path: { paymentId } } });
if (!cancelled.data) throw new Error('cancel failed');

// The document's rules are types: an account without routing and an unknown code do not compile.
// @ts-expect-error needs an iban, or a sortCode with an accountNumber
const noRouting: components['schemas']['CreatePaymentRequest']['toAccount'] = { accountName: 'A' };
// @ts-expect-error not a code the service emits
const noSuchCode: ErrorCode = 'NO_SUCH_CODE';
void noRouting;
void noSuchCode;

// A second cancel fails; the typed code is switched on, and an unknown one is still handled.
const again = await client.POST('/payments/{paymentId}/cancel', { params: { path: { paymentId } } });
const code: ErrorCode | undefined = again.error?.error.code;
let outcome: string;
switch (code) {
  case 'PAYMENT_NOT_CANCELLABLE':
    outcome = 'already finished';
    break;
  default:
    outcome = 'unexpected: ' + String(code);
}

// The sandbox bodies are optional: no {} needed.
const other = await client.POST('/payments', {
  body: { toAccount: { accountName: 'A', iban: 'GB33BUKB20201555555555' }, amount: { value: 1, currency: 'EUR' } },
});
const approved = await client.POST('/payments/{paymentId}/mock-bank/approve', {
  params: { path: { paymentId: other.data?.data.paymentId ?? '' } },
});

console.log(JSON.stringify({
  created: created.response.status,
  status,
  listed: page.data.data.payments.map((payment) => payment.paymentId).includes(paymentId),
  total: page.data.data.total,
  cancelled: cancelled.data.data.status,
  againStatus: again.response.status,
  outcome,
  approved: approved.data?.data.status,
}));
`;

describe('a client generated from the document (openapi-typescript + openapi-fetch)', () => {
  it('compiles under strict and runs create -> get -> list -> cancel against the server', {
    timeout: 120_000,
  }, async () => {
    // defaultNonNullable off: openapi-typescript's default makes request fields that have a
    // `default` (flowType, provider) required (openapi-ts/openapi-typescript#1741).
    const types = astToString(await openapiTS(document, { defaultNonNullable: false }));
    const project = path.join(workDir, 'client');
    await run('mkdir', ['-p', project]);
    await symlink(path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules'));
    await writeFile(path.join(project, 'schema.ts'), types);
    await writeFile(path.join(project, 'client.ts'), CLIENT);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: [],
          skipLibCheck: true,
          outDir: 'out',
        },
        files: ['client.ts', 'schema.ts'],
      }),
    );
    const compiled = await run(process.execPath, [bin('tsc'), '-p', project], { cwd: project }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(compiled.stdout).toBe('');

    await app.listen({ port: 0, host: '127.0.0.1' });
    const { apiKey } = await factories.createMerchant();
    const { stdout } = await run(process.execPath, [path.join(project, 'out/client.js')], {
      cwd: project,
      env: {
        PIS_API_URL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api`,
        PIS_API_KEY: apiKey,
      },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      created: 201,
      status: 'AUTHORIZING',
      listed: true,
      total: 1,
      cancelled: 'CANCELLED',
      againStatus: 409,
      outcome: 'already finished',
      approved: 'COMPLETED',
    });
  });
});
