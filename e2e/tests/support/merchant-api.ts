import { inject } from 'vitest';

/** The merchant's side of a flow: the REST API with the run's API key. */

/** Where the customer returns; never a real site (browser.ts answers it locally). */
export const MERCHANT_ORIGIN = 'https://merchant.example';

export interface CreatedPayment {
  paymentId: string;
  status: string;
  redirectUrl: string | null;
  bankId?: string;
}

export interface Payment {
  paymentId: string;
  status: string;
  isoStatus: { code: string; reason?: { code: string; name: string } };
  bankId?: string;
  completedAt?: string;
  error?: { code: string; message: string | null };
  statusHistory?: Array<{ status: string; timestamp: string }>;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inject('baseUrl')}${path}`, {
    method,
    headers: {
      'x-api-key': inject('apiKey'),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { success: boolean; data?: T; error?: unknown };
  if (!envelope.success)
    throw new Error(`${method} ${path} -> ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data as T;
}

const GB_PAYEE = { accountName: 'E2E Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' };

export const createPayment = (overrides: Record<string, unknown> = {}) =>
  call<CreatedPayment>('POST', '/api/payments', {
    toAccount: GB_PAYEE,
    amount: { value: '12.50', currency: 'GBP' },
    reference: 'E2E-ORDER-1',
    redirectUrl: `${MERCHANT_ORIGIN}/return?order=1`,
    ...overrides,
  });

export const getPayment = (paymentId: string) => call<Payment>('GET', `/api/payments/${paymentId}`);

export const cancelPayment = (paymentId: string) =>
  call<Payment>('POST', `/api/payments/${paymentId}/cancel`);

/** Reads the payment until `done` holds or the time is up; returns the last read. */
export async function pollPayment(
  paymentId: string,
  done: (payment: Payment) => boolean,
  timeoutMs: number,
): Promise<Payment> {
  const deadline = Date.now() + timeoutMs;
  let payment = await getPayment(paymentId);
  while (!done(payment) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    payment = await getPayment(paymentId);
  }
  return payment;
}
