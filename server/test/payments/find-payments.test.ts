import { describe, expect, test } from 'vitest';
import { expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, type PaymentData, paymentBody, SECOND } from './payment-fixtures.ts';

const { app, factories, clock } = await createTestApp();
const merchant = await factories.createMerchant();
const { headers } = merchant;
const other = await factories.createMerchant();

interface ListData {
  payments: PaymentData[];
  total: number;
}
const list = async (query: Record<string, string>, as = headers) =>
  expectSuccess<ListData>(
    await app.inject({ method: 'GET', url: `/api/payments?${new URLSearchParams(query)}`, headers: as }),
  );
const found = async (query: Record<string, string>) => {
  const data = await list(query);
  expect(data.total, JSON.stringify(query)).toBe(data.payments.length);
  return data.payments.map((payment) => payment.reference.reference);
};

// One payment a minute, each with a reference and payee name a search must tell apart.
const specs = [
  { reference: 'INV-2026-001', payee: 'Acme Ltd', currency: 'GBP', endToEndId: 'E2E-alpha' },
  { reference: 'inv-2026-002', payee: 'Bolt & Sons', currency: 'EUR', endToEndId: 'E2E-beta' },
  { reference: '100% cotton', payee: "O'Brien", currency: 'GBP', endToEndId: 'E2E-gamma' },
  { reference: '100 x cotton', payee: 'Under_Score', currency: 'GBP', endToEndId: 'E2E-delta' },
  { reference: 'back\\slash', payee: 'UnderXScore', currency: 'EUR', endToEndId: 'E2E-epsilon' },
  { reference: 'say "hi"', payee: 'Zed', currency: 'GBP', endToEndId: 'E2E-zeta' },
];
const made: { id: string; createdAt: string }[] = [];
for (const spec of specs) {
  const body = paymentBody({
    reference: { reference: spec.reference, endToEndId: spec.endToEndId },
    amount: { value: '12.34', currency: spec.currency },
    toAccount:
      spec.currency === 'EUR'
        ? { accountName: spec.payee, iban: 'DE89370400440532013000' }
        : { accountName: spec.payee, sortCode: '12-34-56', accountNumber: '12345678' },
  });
  const payment = await created(app, headers, body);
  made.push({ id: payment.paymentId, createdAt: payment.createdAt });
  clock.advance(60 * SECOND);
}
// Another organization with the same words: never found by this merchant.
await created(app, other.headers, paymentBody({ reference: 'INV-2026-001 elsewhere' }));

describe('GET /api/payments: search, created range, currency', () => {
  test('a payment id or end-to-end id finds exactly that payment', async () => {
    expect(await found({ search: made[2]?.id as string })).toEqual(['100% cotton']);
    expect(await found({ search: 'E2E-beta' })).toEqual(['inv-2026-002']);
    // Exact only: part of an id is not a match (unless a reference or name contains it).
    expect(await found({ search: String(made[2]?.id).slice(0, 10) })).toEqual([]);
    // Padding is trimmed, as pasted ids often carry it.
    expect(await found({ search: ` E2E-zeta ` })).toEqual(['say "hi"']);
  });

  test('part of a reference or payee name, ignoring case, newest first, exact total', async () => {
    expect(await found({ search: 'inv-2026' })).toEqual(['inv-2026-002', 'INV-2026-001']);
    expect(await found({ search: 'ACME' })).toEqual(['INV-2026-001']);
    expect(await found({ search: 'bolt &' })).toEqual(['inv-2026-002']);
    const page = await list({ search: 'inv', limit: '1' });
    expect(page.total).toBe(2);
    expect(page.payments).toHaveLength(1);
  });

  test('%, _, backslashes and quotes are taken literally', async () => {
    expect(await found({ search: '100%' })).toEqual(['100% cotton']);
    expect(await found({ search: '%' })).toEqual(['100% cotton']);
    // `_` is not "any character": UnderXScore is not found.
    expect(await found({ search: 'under_' })).toEqual(['100 x cotton']);
    expect(await found({ search: '_' })).toEqual(['100 x cotton']);
    expect(await found({ search: 'back\\slash' })).toEqual(['back\\slash']);
    expect(await found({ search: '\\' })).toEqual(['back\\slash']);
    expect(await found({ search: "o'brien" })).toEqual(['100% cotton']);
    expect(await found({ search: '"hi"' })).toEqual(['say "hi"']);
    expect(await found({ search: "'; drop table payment; --" })).toEqual([]);
  });

  test('createdFrom and createdTo (inclusive, any RFC 3339 offset) and currency, with the other filters', async () => {
    const second = made[1]?.createdAt as string;
    const fourth = made[3]?.createdAt as string;
    expect(await found({ createdFrom: second, createdTo: fourth })).toEqual([
      '100 x cotton',
      '100% cotton',
      'inv-2026-002',
    ]);
    // The same instant written with an offset.
    const inParis = new Date(Date.parse(fourth) + 3600_000).toISOString().replace('Z', '+01:00');
    expect(await found({ createdTo: inParis })).toHaveLength(4);
    expect(await found({ createdFrom: fourth })).toEqual(['say "hi"', 'back\\slash', '100 x cotton']);
    expect(await found({ currency: 'EUR' })).toEqual(['back\\slash', 'inv-2026-002']);
    expect(await found({ currency: 'EUR', search: 'inv' })).toEqual(['inv-2026-002']);
    expect(await found({ currency: 'USD' })).toEqual([]);
    expect(await found({ currency: 'GBP', status: 'AUTHORIZING', createdFrom: second })).toEqual([
      'say "hi"',
      '100 x cotton',
      '100% cotton',
    ]);
  });

  test('another organization is never searched', async () => {
    expect((await list({ search: 'INV-2026-001' }, other.headers)).payments).toHaveLength(1);
    expect(await found({ search: 'elsewhere' })).toEqual([]);
  });

  test('bad input: 400 VALIDATION_FAILED with the field, never a 500', async () => {
    const failed = async (query: Record<string, string>) =>
      expectValidationFailed(
        await app.inject({ method: 'GET', url: `/api/payments?${new URLSearchParams(query)}`, headers }),
      );
    expect(await failed({ search: 'x'.repeat(10_000) })).toEqual([
      { field: 'search', message: expect.stringContaining('100') },
    ]);
    expect((await failed({ search: 'x'.repeat(101) }))[0]?.field).toBe('search');
    expect(await found({ search: 'x'.repeat(100) })).toEqual([]);
    expect((await failed({ search: '   ' }))[0]?.field).toBe('search');
    expect(await failed({ createdFrom: '2026-11-02T00:00:00Z', createdTo: '2026-11-01T00:00:00Z' })).toEqual([
      { field: 'createdFrom', message: 'must not be after createdTo' },
    ]);
    for (const value of ['yesterday', '2026-11-01', '2026-13-01T00:00:00Z', '1700000000']) {
      expect((await failed({ createdFrom: value }))[0]?.field).toBe('createdFrom');
      expect((await failed({ createdTo: value }))[0]?.field).toBe('createdTo');
    }
    expect((await failed({ currency: 'XXX' }))[0]?.field).toBe('currency');
    expect((await failed({ currency: 'gbp' }))[0]?.field).toBe('currency');
  });
});
