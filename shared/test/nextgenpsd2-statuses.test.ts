import { describe, expect, it } from 'vitest';
import {
  CreatePaymentInput,
  ISO_CODES,
  type PaymentRecord,
  REASON_CODES,
  receivePayment,
  reportFromBank,
  sendToProvider,
} from '../src/index.ts';
import {
  NEXTGENPSD2_DESCRIPTOR,
  NEXTGENPSD2_PROVIDER,
  NEXTGENPSD2_STATUS_MAP,
  nextgenpsd2Report,
  nextgenpsd2Target,
} from '../src/providers/nextgenpsd2.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const atBank = (): PaymentRecord => {
  const received = receivePayment(
    CreatePaymentInput.parse({
      toAccount: { accountName: 'Kaffeehaus Berlin GmbH', iban: 'DE89370400440532013000' },
      amount: { value: '42.00', currency: 'EUR' },
      provider: NEXTGENPSD2_PROVIDER,
      bankId: 'sandbox-bank-eu',
    }),
    { id: 'pay_test', organizationId: 'org_test', endToEndId: 'E2E1' },
    T0,
  );
  return sendToProvider(received.record, 'sandbox-bank-eu', T0).record;
};

describe('the nextgenpsd2 status table', () => {
  it.each([
    ['RCVD', 'PDNG'],
    ['ACTC', 'ACTC'],
    ['ACCP', 'ACTC'],
    ['ACFC', 'ACTC'],
    ['PATC', 'PDNG'],
    ['PART', 'ACTC'],
    ['ACSP', 'ACSP'],
    ['ACWC', 'ACSP'],
    ['ACWP', 'ACSP'],
    ['ACSC', 'ACSC'],
    ['ACCC', 'ACSC'],
  ])('%s -> %s', (transactionStatus, iso) => {
    const target = nextgenpsd2Target({ transactionStatus });
    expect(target?.iso).toBe(iso);
    expect(target?.reason).toBeUndefined();
  });

  it('CANC is a cancelled payment (CANC / CUST, as the merchant cancel is)', () => {
    expect(nextgenpsd2Target({ transactionStatus: 'CANC' })).toMatchObject({ iso: 'CANC', reason: 'CUST' });
  });

  it('tells the refusal, no funds and any other rejection apart', () => {
    expect(nextgenpsd2Target({ transactionStatus: 'RJCT', scaStatus: 'failed' })).toMatchObject({
      iso: 'RJCT',
      reason: 'CUST',
    });
    expect(
      nextgenpsd2Target({ transactionStatus: 'RJCT', scaStatus: 'finalised', fundsAvailable: false }),
    ).toMatchObject({ iso: 'RJCT', reason: 'AM04' });
    const other = nextgenpsd2Target({
      transactionStatus: 'RJCT',
      scaStatus: 'finalised',
      psuMessage: 'Creditor account closed',
    });
    expect(other).toMatchObject({ iso: 'RJCT', reason: 'NARR' });
    expect(other?.details).toContain('Creditor account closed');
  });

  it('an unknown status, or a name of Object.prototype, says nothing', () => {
    for (const transactionStatus of ['XXXX', '', 'toString', '__proto__', 'constructor', 'rcvd'])
      expect(nextgenpsd2Target({ transactionStatus })).toBeNull();
  });

  it('uses only ISO codes and reasons the service knows', () => {
    for (const target of Object.values(NEXTGENPSD2_STATUS_MAP)) {
      expect(ISO_CODES).toContain(target.iso);
      if (target.reason) expect(REASON_CODES).toContain(target.reason);
    }
  });

  it('reports the statuses as strings, leaving out the ones not read', () => {
    expect(nextgenpsd2Report({ transactionStatus: 'ACSC', fundsAvailable: true })).toEqual({
      target: NEXTGENPSD2_STATUS_MAP.ACSC,
      providerStatus: { transaction: 'ACSC' },
    });
    expect(
      nextgenpsd2Report({ transactionStatus: 'RJCT', scaStatus: 'failed', psuMessage: 'x' }).providerStatus,
    ).toEqual({ transaction: 'RJCT', sca: 'failed' });
    expect(nextgenpsd2Report({ transactionStatus: 'QQQQ' }).target).toBeNull();
  });

  it('moves a payment forward only, keeps the statuses, and fails it with the reason', () => {
    const waiting = reportFromBank(atBank(), nextgenpsd2Report({ transactionStatus: 'RCVD' }), at(1)).record;
    expect(waiting).toMatchObject({ status: 'AUTHORIZING', providerStatus: { transaction: 'RCVD' } });
    const settling = reportFromBank(waiting, nextgenpsd2Report({ transactionStatus: 'ACSP' }), at(2)).record;
    expect(settling).toMatchObject({ status: 'ACCEPTED', providerStatus: { transaction: 'ACSP' } });
    const late = reportFromBank(settling, nextgenpsd2Report({ transactionStatus: 'ACTC' }), at(3));
    expect(late.history).toEqual([]);
    expect(late.record.status).toBe('ACCEPTED');
    const unknown = reportFromBank(settling, nextgenpsd2Report({ transactionStatus: 'ZZZZ' }), at(4));
    expect(unknown.history).toEqual([]);
    expect(unknown.record.status).toBe('ACCEPTED');

    const refused = reportFromBank(
      waiting,
      nextgenpsd2Report({ transactionStatus: 'RJCT', scaStatus: 'failed' }),
      at(5),
    ).record;
    expect(refused).toMatchObject({ status: 'FAILED', isoCode: 'RJCT', isoReason: 'CUST' });
    const noFunds = reportFromBank(
      waiting,
      nextgenpsd2Report({ transactionStatus: 'RJCT', scaStatus: 'finalised', fundsAvailable: false }),
      at(5),
    ).record;
    expect(noFunds).toMatchObject({ status: 'FAILED', isoCode: 'RJCT', isoReason: 'AM04' });
    const cancelled = reportFromBank(waiting, nextgenpsd2Report({ transactionStatus: 'CANC' }), at(5)).record;
    expect(cancelled).toMatchObject({ status: 'CANCELLED', isoCode: 'CANC' });
  });

  it('describes the provider and Sandbox Bank EU', () => {
    expect(NEXTGENPSD2_DESCRIPTOR).toMatchObject({
      code: 'nextgenpsd2',
      name: 'Berlin Group NextGenPSD2',
      linkKind: 'ours',
      currencies: ['EUR'],
      accountSchemes: ['iban'],
      maxDecimals: 2,
      bankRequiredForApiOnly: true,
    });
    expect(NEXTGENPSD2_DESCRIPTOR.banks).toEqual([
      expect.objectContaining({
        id: 'sandbox-bank-eu',
        name: 'Sandbox Bank EU',
        country: 'DE',
        paymentMethods: ['SEPA_CREDIT_TRANSFER', 'SEPA_INSTANT'],
        features: { accountAccess: false, accountBalance: false, transactions: false, payments: true },
        providers: ['nextgenpsd2'],
        practice: true,
      }),
    ]);
    expect(NEXTGENPSD2_DESCRIPTOR.banks[0]?.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });
});
