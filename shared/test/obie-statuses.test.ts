import { describe, expect, it } from 'vitest';
import {
  CreatePaymentInput,
  catchUp,
  obieReport,
  obieTarget,
  PAYMENT_LIFETIME_MS,
  type PaymentRecord,
  receivePayment,
  reportFromBank,
  sendToProvider,
} from '../src/index.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const atBank = (): PaymentRecord => {
  const received = receivePayment(
    CreatePaymentInput.parse({
      toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
      amount: { value: '10.50', currency: 'GBP' },
      provider: 'obie',
      bankId: 'obie-sandbox-bank',
    }),
    { id: 'pay_test', organizationId: 'org_test', endToEndId: 'E2E1' },
    T0,
  );
  return sendToProvider(received.record, 'obie-sandbox-bank', T0).record;
};

describe('the obie status table (issue 19)', () => {
  it.each([
    [{ consentStatus: 'AWAU', bankStatus: null }, 'PDNG', undefined],
    [{ consentStatus: 'AUTH', bankStatus: null }, 'ACTC', undefined],
    [{ consentStatus: 'RJCT', bankStatus: null }, 'RJCT', 'CUST'],
    [{ consentStatus: 'COND', bankStatus: 'RCVD' }, 'ACCP', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACCP' }, 'ACCP', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACFC' }, 'ACCP', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACSP' }, 'ACSP', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACWC' }, 'ACSP', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACSC' }, 'ACSC', undefined],
    [{ consentStatus: 'COND', bankStatus: 'ACCC' }, 'ACSC', undefined],
    [{ consentStatus: 'COND', bankStatus: 'RJCT', bankReason: 'AM04' }, 'RJCT', 'AM04'],
    [{ consentStatus: 'COND', bankStatus: 'RJCT', bankReason: 'AC04' }, 'RJCT', 'AC04'],
    [{ consentStatus: 'COND', bankStatus: 'RJCT', bankReason: 'FF01' }, 'RJCT', 'NARR'],
  ])('%o -> %s %s', (facts, iso, reason) => {
    expect(obieTarget(facts)).toMatchObject({ iso, ...(reason ? { reason } : {}) });
  });

  it('an unknown status says nothing', () => {
    expect(obieTarget({ consentStatus: 'XXXX', bankStatus: null })).toBeNull();
  });

  it('keeps both facts and never moves backwards on an out-of-order report', () => {
    const accepted = reportFromBank(
      atBank(),
      obieReport({ consentStatus: 'COND', bankStatus: 'ACSP' }),
      at(5),
    ).record;
    expect(accepted).toMatchObject({
      status: 'ACCEPTED',
      providerStatus: { consent: 'COND', payment: 'ACSP' },
    });
    const late = reportFromBank(accepted, obieReport({ consentStatus: 'COND', bankStatus: 'RCVD' }), at(6));
    expect(late.history).toEqual([]);
    expect(late.record.status).toBe('ACCEPTED');
    const consentOnly = reportFromBank(
      accepted,
      obieReport({ consentStatus: 'AUTH', bankStatus: null }),
      at(7),
    );
    expect(consentOnly.record.status).toBe('ACCEPTED');
  });

  it('a bank rejection: FAILED with the reason, and error says why', () => {
    const failed = reportFromBank(
      atBank(),
      obieReport({
        consentStatus: 'COND',
        bankStatus: 'RJCT',
        bankReason: 'FF01',
        bankReasonText: 'Invalid file format',
      }),
      at(5),
    ).record;
    expect(failed).toMatchObject({ status: 'FAILED', isoCode: 'RJCT', isoReason: 'NARR' });
    expect(failed.error?.code).toBe('NARR');
    expect(failed.error?.message).toContain('FF01');
  });

  it('our 24 h expiry still applies to a consent never finished, not to one authorised', () => {
    const waiting = reportFromBank(
      atBank(),
      obieReport({ consentStatus: 'AWAU', bankStatus: null }),
      at(5),
    ).record;
    expect(catchUp(waiting, at(PAYMENT_LIFETIME_MS / 1000 + 1)).record.status).toBe('EXPIRED');
    const authorised = reportFromBank(
      waiting,
      obieReport({ consentStatus: 'AUTH', bankStatus: null }),
      at(6),
    ).record;
    expect(authorised).toMatchObject({ status: 'AUTHORIZED', nextDueAt: null });
    expect(catchUp(authorised, at(PAYMENT_LIFETIME_MS / 1000 + 1)).record.status).toBe('AUTHORIZED');
  });
});
