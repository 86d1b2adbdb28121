import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll } from 'vitest';
import { createTestApp } from '../../../server/test/helpers/test-app.ts';
import { TestClock } from '../../../server/test/helpers/test-clock.ts';
import { PaymentsClient } from '../../src/index.ts';
import { createMockApi } from '../../src/msw/index.ts';

/** One implementation of the API, driven the same way by every scenario. */
export interface Target {
  name: 'server' | 'msw';
  baseUrl: string;
  /** The address the target puts in links it gives out (the server's configured public URL). */
  publicBaseUrl: string;
  /** A client with a read+write key of a fresh organization. */
  client: () => Promise<PaymentsClient>;
  /** The same, with its key (for requests the SDK does not make as such). */
  merchant: () => Promise<{ client: PaymentsClient; apiKey: string }>;
  /** A client whose key the target does not know. */
  stranger: PaymentsClient;
  /** Moves the target's clock (the server's injected clock; the kit's `now`). */
  advance: (ms: number) => void;
}

// Retries would only blur the comparison; each scenario sees the first answer.
const clientOptions = { maxRetries: 0 } as const;

/** The real service: Fastify app on an embedded Postgres (server/test harness), listening on a port. */
export const serverTarget = async (): Promise<Target> => {
  const { app, clock, config, factories } = await createTestApp({ waiting: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    name: 'server',
    baseUrl,
    publicBaseUrl: config.publicBaseUrl,
    client: async () => {
      const { apiKey } = await factories.createMerchant();
      return new PaymentsClient({ apiKey, baseUrl, ...clientOptions });
    },
    merchant: async () => {
      const { apiKey } = await factories.createMerchant();
      return { apiKey, client: new PaymentsClient({ apiKey, baseUrl, ...clientOptions }) };
    },
    stranger: new PaymentsClient({ apiKey: 'pis_unknown_0000000000000000', baseUrl, ...clientOptions }),
    advance: (ms) => clock.advance(ms),
  };
};

/**
 * The MSW kit, on the same kind of clock the server tests use. One kit per client, as one
 * organization per client on the server. Requests to anything else (the real server) pass through.
 */
export const mswTarget = (): Target => {
  const baseUrl = 'https://pis.test';
  const clock = new TestClock();
  const apiKey = 'pis_msw_contract_key';
  const api = createMockApi({ baseUrl, apiKey, now: () => clock.now() });
  const server = setupServer(...api.handlers);
  server.listen({ onUnhandledFrame: 'bypass' });
  afterAll(() => server.close());
  return {
    name: 'msw',
    baseUrl,
    publicBaseUrl: baseUrl,
    client: async () => {
      api.controls.reset();
      return new PaymentsClient({ apiKey, baseUrl, ...clientOptions });
    },
    merchant: async () => {
      api.controls.reset();
      return { apiKey, client: new PaymentsClient({ apiKey, baseUrl, ...clientOptions }) };
    },
    stranger: new PaymentsClient({ apiKey: 'pis_unknown_0000000000000000', baseUrl, ...clientOptions }),
    advance: (ms) => clock.advance(ms),
  };
};
