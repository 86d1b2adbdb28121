import { defaultReference, referenceCode } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { loadPayment } from '../../src/payments/load-payment.ts';
import { consentBody } from '../../src/providers/obie/obie-requests.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  paymentBody,
  readPayment,
  tokenOf,
  trpcData,
  trpcQuery,
} from '../payments/payment-fixtures.ts';

/**
 * What the customer reads at the bank is the merchant's (issue 34 item 7): with no reference
 * given, the merchant's name and a short order-like code, never the 32-character hex id; the
 * payee's account as sort code and number (or IBAN) for the page to show formatted.
 */
const { app, factories, orm } = await createTestApp();
const organizationId = await factories.createOrg({ name: 'Corner Café & Co' });
const { apiKey } = await factories.createKey(organizationId);
const headers = { 'x-api-key': apiKey };
const HEX_ID = /^[0-9A-F]{32}$/;
const CODE = '[0-9A-HJKMNP-TV-Z]{6}';

const withoutReference = (overrides: Record<string, unknown> = {}) => {
  const { reference: _none, ...body } = paymentBody(overrides);
  return body;
};

describe('a payment created without a reference', () => {
  test('gets the merchant’s name and a short code (Faster Payments characters, at most 35), its own end-to-end id', async () => {
    const payment = await readPayment(
      app,
      headers,
      (await created(app, headers, withoutReference())).paymentId,
    );
    const { reference, endToEndId } = payment.reference as { reference: string; endToEndId: string };
    expect(reference).toMatch(new RegExp(`^Corner Cafe Co ${CODE}$`));
    expect(reference).toBe(defaultReference('Corner Café & Co', endToEndId));
    expect(reference.length).toBeLessThanOrEqual(35);
    expect(reference).not.toMatch(/[0-9A-F]{32}/);
    expect(endToEndId).toMatch(HEX_ID);
  });

  test('the Mock bank page reads it, with the payee’s sort code and account number', async () => {
    const payment = await created(app, headers, withoutReference({ flowType: 'API_ONLY' }));
    const session = trpcData<{ reference: string; payee: Record<string, string> }>(
      await trpcQuery(app, 'pages.mockBankSession', { token: tokenOf(payment.redirectUrl) }),
    );
    expect(session.reference).toMatch(new RegExp(`^Corner Cafe Co ${CODE}$`));
    expect(session.payee).toEqual({
      accountName: 'Acme Ltd',
      sortCode: '123456', // stored as digits; the page shows 12-34-56
      accountNumber: '12345678',
    });
  });

  test('an IBAN payee reaches the page as its IBAN', async () => {
    const payment = await created(
      app,
      headers,
      withoutReference({
        toAccount: { accountName: 'Liffey Ltd', iban: 'IE29AIBK93115212345678' },
        amount: { value: '5.00', currency: 'EUR' },
      }),
    );
    const session = trpcData<{ payee: Record<string, string> }>(
      await trpcQuery(app, 'pages.mockBankSession', { token: tokenOf(payment.redirectUrl) }),
    );
    expect(session.payee).toEqual({ accountName: 'Liffey Ltd', iban: 'IE29AIBK93115212345678' });
  });

  test('an Open Banking bank is sent the same reference as remittance information', async () => {
    const payment = await readPayment(
      app,
      headers,
      (await created(app, headers, withoutReference())).paymentId,
    );
    const { record } = await loadPayment(orm.em.fork(), { paymentId: payment.paymentId });
    const sent = consentBody(record).Data.Initiation.RemittanceInformation.Unstructured[0];
    expect(sent).toBe((payment.reference as { reference: string }).reference);
    expect(sent).not.toMatch(HEX_ID);
  });

  test('a reference the merchant gives is kept as given', async () => {
    const payment = await readPayment(
      app,
      headers,
      (await created(app, headers, paymentBody({ reference: 'Order 1001' }))).paymentId,
    );
    expect((payment.reference as { reference: string }).reference).toBe('Order 1001');
  });
});

describe('the default reference', () => {
  test('keeps the code whole when the name is long, and says Payment when no character of the name is usable', () => {
    const long = defaultReference(
      'The Extraordinarily Long Named Trading Company Limited',
      'ABCDEF0123456789ABCDEF0123456789',
    );
    expect(long.length).toBeLessThanOrEqual(35);
    expect(long.endsWith(` ${referenceCode('ABCDEF0123456789ABCDEF0123456789')}`)).toBe(true);
    expect(defaultReference('☕☕', '00000000000000000000000000000000')).toBe('Payment 000000');
  });

  test('the code is the end-to-end id’s own: the same id, the same code', () => {
    expect(referenceCode('0123456789ABCDEF0123456789ABCDEF')).toBe(
      referenceCode('0123456789ABCDEF0123456789ABCDEF'),
    );
    expect(referenceCode('0123456789ABCDEF0123456789ABCDEF')).not.toBe(
      referenceCode('1123456789ABCDEF0123456789ABCDEF'),
    );
  });
});
