import { type PaymentList, paymentMatches, searchedAmount } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data } from './dashboard-browser.ts';

/**
 * The payments list's search finds an exact amount (issue 34 item 8), with the status and the
 * dates applying together, in the database's filter and in shared's paymentMatches alike.
 */
const { app } = await createTestApp();
const b = new DashboardBrowser(app, '198.51.100.77');
await b.signUp();

const make = async (value: string, reference: string) => {
  const made = data<{ paymentId: string }>(
    await b.mutation('payments.create', {
      payment: {
        amount: { value, currency: 'GBP' },
        toAccount: { accountName: 'Corner Café', sortCode: '12-34-56', accountNumber: '12345678' },
        reference,
        flowType: 'API_ONLY',
      },
      idempotencyKey: `amount-${reference}`,
    }),
  );
  return made.paymentId;
};
const failed = await make('18.40', 'Table 4');
await make('18.40', 'Table 5');
await make('184.00', 'Table 6');
await make('1250.00', 'Banquet');
data(await b.mutation('payments.reject', { paymentId: failed, reason: 'CUST' }));

const references = async (query: Record<string, unknown>) =>
  data<PaymentList>(await b.query('payments.list', query)).payments.map((p) => p.reference.reference);

describe('search by amount', () => {
  test('an exact amount, in the ways a merchant types it; never a part of one', async () => {
    expect((await references({ search: '18.40' })).sort()).toEqual(['Table 4', 'Table 5']);
    expect((await references({ search: '18.4' })).sort()).toEqual(['Table 4', 'Table 5']);
    expect((await references({ search: '£18.40' })).sort()).toEqual(['Table 4', 'Table 5']);
    expect(await references({ search: '1,250.00' })).toEqual(['Banquet']);
    expect(await references({ search: '18' })).toEqual([]);
  });

  test('with the status and the dates together', async () => {
    expect(await references({ search: '18.40', status: 'FAILED' })).toEqual(['Table 4']);
    const [payment] = data<PaymentList>(await b.query('payments.list', { search: 'Table 4' })).payments;
    const day = new Date(payment?.createdAt ?? '');
    const from = new Date(day.getTime() - 3_600_000).toISOString();
    expect(await references({ search: '18.40', status: 'FAILED', createdFrom: from })).toEqual(['Table 4']);
    const later = new Date(day.getTime() + 3_600_000).toISOString();
    expect(await references({ search: '18.40', status: 'FAILED', createdFrom: later })).toEqual([]);
  });

  test('shared’s paymentMatches (the MSW kit) agrees', () => {
    expect(searchedAmount('18.4')).toBe('18.4');
    expect(searchedAmount('£ 1,250.00')).toBe('1250.00');
    expect(searchedAmount('INV-18')).toBeNull();
    expect(searchedAmount('18.405')).toBeNull();
    // An order number with a leading zero is a reference search, not an amount.
    expect(searchedAmount('0042')).toBeNull();
    expect(searchedAmount('0.50')).toBe('0.50');
    const record = {
      amount: { value: '18.40' },
      reference: { reference: 'x', endToEndId: 'y' },
      toAccount: { accountName: 'z' },
      createdAt: new Date(),
    };
    expect(paymentMatches(record as never, { search: '18.4' })).toBe(true);
    expect(paymentMatches(record as never, { search: '18' })).toBe(false);
  });
});
