import net from 'node:net';
import path from 'node:path';
import { startBank } from '../../sandbox-bank/src/app.ts';
import { loadConfig as loadBankConfig } from '../../sandbox-bank/src/config.ts';
import { silentLogger as silentBankLogger } from '../../sandbox-bank/src/logger.ts';
import { customerAt } from '../../sandbox-bank/test/support/customer.ts';
import { approveProvider } from '../src/organizations/organization-admin.ts';
import { startService } from './service.ts';
import { percentile } from './statistics.ts';
import type { ThrowawayCluster } from './throwaway-cluster.ts';

/**
 * `npm run bench -- --obie` (opt-in: it starts the sandbox bank and pays through it, issue 19):
 * 1. `obie` API_ONLY creates (row first, client-credentials token, signed consent) at a few
 *    at a time: creates per second and latency.
 * 2. The time from the customer's approval at the bank (our callback answered) to `COMPLETED`
 *    as a waiting read (If-None-Match + Prefer: wait) sees it, with the bank's notifications and
 *    our polling moving it; the bank's own steps take BANK_STEP_MS each (ACSP, then ACSC).
 */
export interface ObieResult {
  creates: number;
  createsPerSecond: number;
  createP50Ms: number;
  createP99Ms: number;
  approvals: number;
  bankStepMs: number;
  completedP50Ms: number;
  completedMaxMs: number;
}

const CREATES = 100;
const CREATE_CONCURRENCY = 5;
const APPROVALS = 10;
const BANK_STEP_MS = 500;
const BANK_ID = 'obie-sandbox-bank';

export async function measureObie(throwaway: ThrowawayCluster): Promise<ObieResult> {
  const port = await freePort();
  const publicBaseUrl = `http://127.0.0.1:${port}`;
  const bankDir = path.join(throwaway.dir, 'sandbox-bank');
  const bank = await startBank(
    {
      ...loadBankConfig({}),
      port: 0,
      apiPort: 0,
      dataDir: bankDir,
      databaseUrl: await throwaway.createDatabase('sandbox_bank'),
      redirectUris: [`${publicBaseUrl}/providers/obie/callback`],
      eventUrl: `${publicBaseUrl}/api/providers/obie/event-notifications`,
      stepMs: BANK_STEP_MS,
      logLevel: 'silent',
    },
    silentBankLogger(),
  );
  try {
    const service = await startService(await throwaway.createDatabase('obie_service'), throwaway.dir, {
      env: {
        PUBLIC_BASE_URL: publicBaseUrl,
        OBIE_SANDBOX_CLIENT_FILE: path.join(bankDir, 'client.json'),
      },
    });
    try {
      await service.app.listen({ host: '127.0.0.1', port });
      await approveProvider(service.database.orm.em.fork(), service.organizationId, 'obie', clockOf());
      const headers = { 'x-api-key': service.apiKey, 'content-type': 'application/json' };
      const create = async () => {
        const started = performance.now();
        const answer = await fetch(`${publicBaseUrl}/api/payments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            provider: 'obie',
            bankId: BANK_ID,
            amount: { value: '10.50', currency: 'GBP' },
            toAccount: { accountName: 'Bench Ltd', sortCode: '040004', accountNumber: '12345678' },
            reference: 'bench obie',
            redirectUrl: 'https://shop.example/bench-return',
          }),
        });
        const body = (await answer.json()) as { data?: { paymentId: string; redirectUrl: string } };
        if (answer.status !== 201 || !body.data) throw new Error(`obie create answered ${answer.status}`);
        return { ms: performance.now() - started, ...body.data };
      };
      // Warm up: discovery, the mutual TLS connection, the first token.
      await create();

      const latencies: number[] = [];
      const began = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CREATE_CONCURRENCY }, async () => {
          while (next < CREATES) {
            next++;
            latencies.push((await create()).ms);
          }
        }),
      );
      const seconds = (performance.now() - began) / 1000;

      const completed: number[] = [];
      for (let index = 0; index < APPROVALS; index++) {
        const payment = await create();
        const callback = new URL(
          await customerAt(new URL(payment.redirectUrl), `${publicBaseUrl}/providers/obie/callback`, {
            action: 'approve',
          }),
        );
        const back = await fetch(callback, { redirect: 'manual' });
        if (back.status !== 200) throw new Error(`our callback answered ${back.status}`);
        await back.text();
        const approvedAt = performance.now();
        let etag = '"none"';
        for (;;) {
          const read = await fetch(`${publicBaseUrl}/api/payments/${payment.paymentId}`, {
            headers: { ...headers, 'if-none-match': etag, prefer: 'wait=20' },
          });
          const body = (await read.json()) as { data: { status: string } };
          etag = read.headers.get('etag') ?? etag;
          if (body.data.status === 'COMPLETED') break;
          if (['FAILED', 'CANCELLED', 'EXPIRED'].includes(body.data.status))
            throw new Error(`bench payment ended ${body.data.status}`);
        }
        completed.push(performance.now() - approvedAt);
      }
      return {
        creates: CREATES,
        createsPerSecond: Math.round(CREATES / seconds),
        createP50Ms: Math.round(percentile(latencies, 0.5)),
        createP99Ms: Math.round(percentile(latencies, 0.99)),
        approvals: APPROVALS,
        bankStepMs: BANK_STEP_MS,
        completedP50Ms: Math.round(percentile(completed, 0.5)),
        completedMaxMs: Math.round(Math.max(...completed)),
      };
    } finally {
      await service.close();
    }
  } finally {
    await bank.close();
  }
}

export function printObie(result: ObieResult): void {
  console.log(
    `\nobie through the sandbox bank: ${result.creates} API_ONLY creates, ${result.createsPerSecond}/s at ${CREATE_CONCURRENCY} at a time, ` +
      `p50 ${result.createP50Ms} ms, p99 ${result.createP99Ms} ms`,
  );
  console.log(
    `obie approval (our callback answered) to COMPLETED seen by a waiting read, ${result.approvals} payments, ` +
      `bank steps ${result.bankStepMs} ms each: p50 ${result.completedP50Ms} ms, max ${result.completedMaxMs} ms`,
  );
}

const clockOf = () => ({ now: () => new Date() });

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
