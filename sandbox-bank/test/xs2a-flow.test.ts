import { describe, expect, it } from 'vitest';
import { until } from './support/bank.ts';
import {
  bankWithTpp,
  CREDITOR_IBAN,
  createPayment,
  customerDecides,
  initiationHeaders,
  paymentBody,
  SCT,
  TPP_NOK_REDIRECT,
  TPP_REDIRECT,
} from './support/xs2a.ts';
import { assertXs2a } from './support/xs2a-schemas.ts';

/**
 * Sandbox Bank EU end to end over mTLS with signed requests: create -> scaRedirect -> the
 * customer approves -> ACTC -> ACSP -> ACSC (about 3 s at the default 1.5 s step), the customer's
 * refusal, an amount above the account's balance, and cancellation before authorisation. Every
 * answer is checked against the official NextGenPSD2 1.3.11 document.
 */
describe('Sandbox Bank EU (NextGenPSD2)', () => {
  const started = bankWithTpp({ stepMs: 1_500 });
  const status = async (path: string) =>
    (await started.tpp.call('GET', `${path}/status`, { schema: 'paymentInitiationStatusResponse-200_json' }))
      .body;
  const scaStatus = async (href: string) =>
    (
      await started.tpp.call('GET', new URL(href).pathname.replace(/^\/xs2a/, ''), {
        schema: 'scaStatusResponse',
      })
    ).body.scaStatus;

  it('pays from the €10,000.00 current account: RCVD, then ACTC on approval and ACSC about 3 s later', async () => {
    expect(await started.balance('eu-current')).toBe('10000.00');
    assertXs2a('paymentInitiation_json', {
      ...paymentBody('1234.56'),
      debtorAccount: { iban: 'DE44999999990000010001' },
    });
    const created = await createPayment(started.tpp, '1234.56');
    expect(created.headers.get('aspsp-sca-approach')).toBe('REDIRECT');
    const { paymentId, transactionStatus, _links } = created.body;
    expect(transactionStatus).toBe('RCVD');
    const self = `${SCT}/${paymentId}`;
    expect(created.headers.get('location')).toBe(`${started.bank.xs2a.baseUrl}${self}`);
    expect(_links.scaRedirect.href.startsWith(`${started.bank.pagesUrl}/xs2a/sca/`)).toBe(true);
    expect(await status(self)).toEqual({ transactionStatus: 'RCVD' });
    expect(await scaStatus(_links.scaStatus.href)).toBe('received');
    const before = await started.tpp.call('GET', self, { schema: 'paymentInitiationWithStatusResponse' });
    expect(before.body).toMatchObject({
      transactionStatus: 'RCVD',
      creditorAccount: { iban: CREDITOR_IBAN },
    });

    const landed = await customerDecides(_links.scaRedirect.href, { action: 'approve' });
    const approvedAt = Date.now();
    expect(landed).toBe(TPP_REDIRECT);
    expect((await status(self)).transactionStatus).toBe('ACTC');
    expect(await scaStatus(_links.scaStatus.href)).toBe('finalised');

    const seen = new Set<string>();
    await until(async () => {
      const { transactionStatus: now } = await status(self);
      seen.add(now);
      return now === 'ACSC';
    }, 6_000);
    const elapsed = Date.now() - approvedAt;
    expect(elapsed).toBeGreaterThan(2_500);
    expect(elapsed).toBeLessThan(5_500);
    expect(seen.has('ACSP')).toBe(true);
    expect(await status(self)).toEqual({ transactionStatus: 'ACSC', fundsAvailable: true });
    const payment = await started.tpp.call('GET', self, { schema: 'paymentInitiationWithStatusResponse' });
    expect(payment.body.debtorAccount).toEqual({ iban: 'DE44999999990000010001', currency: 'EUR' });
    expect(payment.body.instructedAmount).toEqual({ currency: 'EUR', amount: '1234.56' });
    expect(await started.balance('eu-current')).toBe('8765.44');
    const authorisations = await started.tpp.call('GET', `${self}/authorisations`, {
      schema: 'authorisations',
    });
    expect(authorisations.body.authorisationIds).toHaveLength(1);
  });

  it('takes instant SEPA credit transfers the same way, under their own product path', async () => {
    const created = await createPayment(started.tpp, '5.00', 'instant-sepa-credit-transfers');
    const path = `/v1/payments/instant-sepa-credit-transfers/${created.body.paymentId}`;
    expect((await status(path)).transactionStatus).toBe('RCVD');
    // Not the same resource under the other product.
    const other = await started.tpp.call('GET', `${SCT}/${created.body.paymentId}/status`);
    expect(other.status).toBe(403);
    expect(other.body.tppMessages[0].code).toBe('RESOURCE_UNKNOWN');
  });

  it('the customer’s refusal: back to TPP-Nok-Redirect-URI, RJCT without fundsAvailable, SCA failed', async () => {
    const created = await createPayment(started.tpp, '9.99');
    const self = `${SCT}/${created.body.paymentId}`;
    const landed = await customerDecides(created.body._links.scaRedirect.href, { action: 'reject' });
    expect(landed).toBe(TPP_NOK_REDIRECT);
    expect(await status(self)).toEqual({
      transactionStatus: 'RJCT',
      psuMessage: 'The customer rejected the payment at the bank.',
    });
    expect(await scaStatus(created.body._links.scaStatus.href)).toBe('failed');
  });

  it('over the balance: approved (SCA finalised), then RJCT with fundsAvailable false; nothing debited', async () => {
    const created = await createPayment(started.tpp, '80.00');
    const self = `${SCT}/${created.body.paymentId}`;
    expect(
      await customerDecides(created.body._links.scaRedirect.href, {
        action: 'approve',
        account: 'eu-pocket',
      }),
    ).toBe(TPP_REDIRECT);
    const rejected = await until(async () => {
      const body = await status(self);
      return body.transactionStatus === 'RJCT' ? body : undefined;
    }, 5_000);
    expect(rejected).toEqual({
      transactionStatus: 'RJCT',
      fundsAvailable: false,
      psuMessage: 'The chosen account does not hold enough money for this payment.',
    });
    expect(await scaStatus(created.body._links.scaStatus.href)).toBe('finalised');
    expect(await started.balance('eu-pocket')).toBe('50.00');
  });

  it('cancels a payment not yet authorised (204, CANC, the bank’s page closed), and refuses once authorised (405)', async () => {
    const created = await createPayment(started.tpp, '3.00');
    const self = `${SCT}/${created.body.paymentId}`;
    const deleted = await started.tpp.call('DELETE', self);
    expect(deleted.status).toBe(204);
    expect((await status(self)).transactionStatus).toBe('CANC');
    const page = await fetch(created.body._links.scaRedirect.href);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain('The shop cancelled this payment.');

    const approved = await createPayment(started.tpp, '4.00');
    const approvedPath = `${SCT}/${approved.body.paymentId}`;
    await customerDecides(approved.body._links.scaRedirect.href, { action: 'approve' });
    const refused = await started.tpp.call('DELETE', approvedPath);
    expect(refused.status).toBe(405);
    expect(refused.body.tppMessages[0].code).toBe('CANCELLATION_INVALID');
    expect((await status(approvedPath)).transactionStatus).not.toBe('CANC');
  });

  it('a debtorAccount in the request is the only account the customer may pay from', async () => {
    const created = await started.tpp.call('POST', SCT, {
      body: paymentBody('1.00', { debtorAccount: { iban: 'DE17999999990000010002', currency: 'EUR' } }),
      headers: initiationHeaders,
      schema: 'paymentInitationRequestResponse-201',
    });
    const href = created.body._links.scaRedirect.href;
    // Approving from the other account is not possible: the choice is not offered, and is sent back to the page.
    const landed = await customerDecides(href, { action: 'approve', account: 'eu-current' });
    expect(landed).toBe(new URL(href).pathname);
    expect((await status(`${SCT}/${created.body.paymentId}`)).transactionStatus).toBe('RCVD');
    expect(await customerDecides(href, { action: 'approve', account: 'eu-pocket' })).toBe(TPP_REDIRECT);
  });
});
