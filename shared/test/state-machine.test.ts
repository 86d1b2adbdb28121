import { describe, expect, it } from 'vitest';
import {
  canTransition,
  ISO_CODES,
  isoStatusOf,
  isTerminal,
  PAYMENT_STATUSES,
  serviceStatusOf,
} from '../src/index.ts';

describe('ISO -> service status mapping (spec: Status mapping)', () => {
  it.each([
    ['RCVD', null, 'PENDING'],
    ['PDNG', null, 'AUTHORIZING'],
    ['ACTC', null, 'AUTHORIZED'],
    ['ACCP', null, 'SUBMITTED'],
    ['ACSP', null, 'ACCEPTED'],
    ['ACSC', null, 'COMPLETED'],
    ['RJCT', 'AM04', 'FAILED'],
    ['RJCT', 'CUST', 'FAILED'],
    ['RJCT', 'NOAS', 'EXPIRED'],
    ['CANC', 'CUST', 'CANCELLED'],
  ] as const)('%s (%s) -> %s', (iso, reason, status) => {
    expect(serviceStatusOf(iso, reason)).toBe(status);
  });

  it('gives every ISO code a name and description, and a reason only on RJCT and CANC', () => {
    for (const code of ISO_CODES) {
      const iso = isoStatusOf(code, 'CUST');
      expect(iso.name.length).toBeGreaterThan(3);
      expect(iso.description.length).toBeGreaterThan(10);
      expect(iso.reason !== undefined).toBe(code === 'RJCT' || code === 'CANC');
    }
    expect(isoStatusOf('ACSC').name).toBe('AcceptedSettlementCompleted');
    expect(isoStatusOf('RJCT', 'AM04').reason).toEqual({ code: 'AM04', name: 'InsufficientFunds' });
    expect(isoStatusOf('RJCT', 'NOAS').reason).toEqual({ code: 'NOAS', name: 'NoAnswerFromCustomer' });
  });
});

describe('transitions', () => {
  it('treats exactly COMPLETED, FAILED, CANCELLED, EXPIRED as terminal', () => {
    expect(PAYMENT_STATUSES.filter(isTerminal)).toEqual(['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED']);
  });

  it('never leaves a terminal status', () => {
    for (const from of PAYMENT_STATUSES.filter(isTerminal)) {
      for (const to of PAYMENT_STATUSES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('only moves forward, and lets any unfinished payment be cancelled or expire', () => {
    expect(canTransition('AUTHORIZED', 'AUTHORIZING')).toBe(false);
    expect(canTransition('SUBMITTED', 'SUBMITTED')).toBe(false);
    expect(canTransition('AUTHORIZING', 'COMPLETED')).toBe(true);
    expect(canTransition('PENDING', 'COMPLETED')).toBe(false);
    for (const from of ['PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED'] as const) {
      expect(canTransition(from, 'CANCELLED')).toBe(true);
      expect(canTransition(from, 'EXPIRED')).toBe(true);
    }
  });
});
