import type { SavedPayee } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

/**
 * Saved payee accounts (issue 34 item 10): checked by the create contract's own `toAccount`
 * schema, so what POST /payments refuses is refused here in the same words, and nothing is stored.
 */
const { app } = await createTestApp();

let addresses = 0;
const signedUp = async () => {
  const b = new DashboardBrowser(app, `198.51.100.${++addresses}`);
  const session = await b.signUp();
  return { b, session };
};
const payees = async (b: DashboardBrowser) =>
  data<{ payees: SavedPayee[] }>(await b.query('settings.payees')).payees;

describe('saved payee accounts', () => {
  test('a UK account and an IBAN are saved as the create normalises them, listed by label, removed', async () => {
    const { b } = await signedUp();
    const uk = data<SavedPayee>(
      await b.mutation('settings.savePayee', {
        label: 'Main account',
        account: { accountName: 'Corner Café Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
      }),
    );
    expect(uk.account).toEqual({
      accountName: 'Corner Café Ltd',
      sortCode: '040004',
      accountNumber: '12345678',
    });
    const euro = data<SavedPayee>(
      await b.mutation('settings.savePayee', {
        label: 'Euro account',
        account: { accountName: 'Corner Café Ltd', iban: 'de89 3704 0044 0532 0130 00' },
      }),
    );
    expect(euro.account).toEqual({ accountName: 'Corner Café Ltd', iban: 'DE89370400440532013000' });
    expect((await payees(b)).map((payee) => payee.label)).toEqual(['Euro account', 'Main account']);

    data(await b.mutation('settings.removePayee', { payeeId: uk.id }));
    expect((await payees(b)).map((payee) => payee.id)).toEqual([euro.id]);
  });

  test('an invalid sort code or IBAN is refused as the API refuses it, and nothing is stored', async () => {
    const { b } = await signedUp();
    const badSortCode = failure(
      await b.mutation('settings.savePayee', {
        label: 'Typo',
        account: { accountName: 'Corner Café Ltd', sortCode: '04-00', accountNumber: '12345678' },
      }),
      400,
    );
    const badIban = failure(
      await b.mutation('settings.savePayee', {
        label: 'Typo',
        account: { accountName: 'Corner Café Ltd', iban: 'DE89370400440532013001' },
      }),
      400,
    );
    expect(badSortCode.code).toBe('VALIDATION_FAILED');
    expect(badIban.code).toBe('VALIDATION_FAILED');
    expect(await payees(b)).toEqual([]);

    // The same words as New payment's create (the REST create's schema) gives for the same account.
    const created = failure(
      await b.mutation('payments.create', {
        payment: {
          amount: { value: '1.00', currency: 'GBP' },
          toAccount: { accountName: 'Corner Café Ltd', iban: 'DE89370400440532013001' },
        },
        idempotencyKey: 'bad-iban',
      }),
      400,
    );
    expect(badIban.details).toEqual([
      { field: 'account.iban', message: created.details?.find((d) => d.field.endsWith('iban'))?.message },
    ]);
    expect(badSortCode.details?.map((detail) => detail.field)).toEqual(['account.sortCode']);
  });

  test('scoped to the organization: another one’s payee is neither listed nor removable; a stranger is refused', async () => {
    const { b } = await signedUp();
    const mine = data<SavedPayee>(
      await b.mutation('settings.savePayee', {
        label: 'Main',
        account: { accountName: 'Shop', sortCode: '040004', accountNumber: '12345678' },
      }),
    );
    const other = await signedUp();
    expect(await payees(other.b)).toEqual([]);
    failure(await other.b.mutation('settings.removePayee', { payeeId: mine.id }), 404);
    expect(await payees(b)).toHaveLength(1);
    failure(await new DashboardBrowser(app, '198.51.100.250').query('settings.payees'), 401);
  });
});
