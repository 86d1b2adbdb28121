import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Config } from '../../src/config.ts';
import type { Orm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { noopPaymentScheduler, type PaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import type { PaymentsDeps } from '../../src/payments/payments-deps.ts';
import { mockProviderRegistry } from '../../src/providers/default-providers.ts';
import type { ProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import type { TestClock } from '../helpers/test-clock.ts';

/** A valid create body; override what a test is about. */
export const paymentBody = (overrides: Record<string, unknown> = {}) => ({
  toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
  amount: { value: '10.50', currency: 'GBP' },
  reference: 'Order 1001',
  redirectUrl: 'https://shop.example/return?order=1001',
  ...overrides,
});

export type Headers = Record<string, string>;

export const createPayment = (app: FastifyInstance, headers: Headers, body: unknown = paymentBody()) =>
  app.inject({ method: 'POST', url: '/api/payments', headers, payload: body as Record<string, unknown> });

/** Creates and returns the 201 data. */
export async function created(app: FastifyInstance, headers: Headers, body: unknown = paymentBody()) {
  return expectSuccess<CreatedData>(await createPayment(app, headers, body), 201);
}

export interface CreatedData {
  paymentId: string;
  status: string;
  isoStatus: { code: string; name: string; description: string; reason?: { code: string; name: string } };
  redirectUrl: string | null;
  provider: string;
  bankId?: string;
  amount: { value: string; currency: string };
  createdAt: string;
  expiresAt: string;
}

export interface PaymentData extends Omit<CreatedData, 'redirectUrl'> {
  redirectUrl?: string;
  toAccount: Record<string, string>;
  fromAccount?: Record<string, string>;
  reference: { reference: string; endToEndId: string };
  flowType: string;
  updatedAt: string;
  completedAt?: string;
  error?: { code: string; message: string | null };
  statusHistory: {
    status: string;
    isoStatus: CreatedData['isoStatus'];
    timestamp: string;
    provider: string | null;
    details: string | null;
    simulated?: true;
    actor?: { type: string; name?: string };
  }[];
}

export const getPayment = (app: FastifyInstance, headers: Headers, id: string) =>
  app.inject({ method: 'GET', url: `/api/payments/${id}`, headers });

export async function readPayment(app: FastifyInstance, headers: Headers, id: string): Promise<PaymentData> {
  return expectSuccess<PaymentData>(await getPayment(app, headers, id));
}

export const post = (app: FastifyInstance, headers: Headers, url: string, body?: Record<string, unknown>) =>
  app.inject({ method: 'POST', url, headers, ...(body ? { payload: body } : {}) });

export const statuses = (payment: PaymentData) => payment.statusHistory.map((entry) => entry.status);

/** The token of a customer link (`.../pay/<token>` or `.../mock-bank/<token>`). */
export const tokenOf = (url: string | null | undefined): string => {
  expect(url).toBeTruthy();
  return new URL(url as string).pathname.split('/').at(-1) as string;
};

/** tRPC over HTTP, as the web app calls it (httpLink, no batching, no transformer). */
export const trpcQuery = (app: FastifyInstance, path: string, input: unknown) =>
  app.inject({ method: 'GET', url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}` });

export const trpcMutation = (app: FastifyInstance, path: string, input: unknown) =>
  app.inject({ method: 'POST', url: `/trpc/${path}`, payload: input as Record<string, unknown> });

export function trpcData<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { result: { data: T } }).result.data;
}

/** The failure of a tRPC call: HTTP status and the AppError kind the pages read. */
export function trpcFailure(response: LightMyRequestResponse, status: number) {
  expect(response.statusCode, response.body).toBe(status);
  const { error } = response.json() as {
    error: { message: string; data: { kind?: string; httpStatus: number; appError: { code?: string } } };
  };
  expect(JSON.stringify(error)).not.toMatch(/node_modules|\.ts:\d+/);
  return { message: error.message, kind: error.data.kind, code: error.data.appError.code };
}

/** Domain dependencies for calling the service directly (the worker's view). */
export const domainDeps = (
  orm: Orm,
  clock: TestClock,
  config: Config,
  options: { providers?: ProviderRegistry; scheduler?: PaymentScheduler } = {},
): PaymentsDeps => ({
  em: orm.em,
  clock,
  config,
  providers: options.providers ?? mockProviderRegistry(config),
  scheduler: options.scheduler ?? noopPaymentScheduler,
  logger: silentLogger(),
});

/** A scheduler that remembers what it was told. */
export function recordingScheduler() {
  const calls: { paymentId: string; dueAt: string }[] = [];
  const scheduler: PaymentScheduler = {
    paymentDue: async (paymentId, dueAt) => {
      calls.push({ paymentId, dueAt: dueAt.toISOString() });
    },
    providerClaimDue: async () => {},
  };
  return { scheduler, calls };
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
