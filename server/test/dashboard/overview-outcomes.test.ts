import type { Overview } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createTestApp } from '../helpers/test-app.ts';
import { created, HOUR, paymentBody, post } from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

const { app, clock, factories } = await createTestApp();
const DAY = 24 * HOUR;

const b = new DashboardBrowser(app, '192.0.2.140');
const account = await b.signUp();
const key = await factories.createKey(account.organization.id);
const headers = { 'x-api-key': key.apiKey };
const approve = async (scenario: Record<string, unknown>, body = paymentBody()) => {
  const { paymentId } = await created(app, headers, body);
  await post(app, headers, `/api/payments/${paymentId}/mock-bank/approve`, scenario);
  return paymentId;
};

// 40 days ago: one instant completion (in 90 days only).
await approve({ preset: 'instant' });
clock.advance(40 * DAY);
// This week: three completions at the Albion bank, two after 60 s and one at once; a failure
// (AM04), a cancel, and one still waiting.
const albion = paymentBody({ bankId: 'mock-gb-albion' });
await approve({ preset: 'realistic' }, albion);
await approve({ preset: 'realistic' }, albion);
await approve({ preset: 'instant' }, albion);
const failed = await created(app, headers);
await post(app, headers, `/api/payments/${failed.paymentId}/mock-bank/reject`, { reason: 'AM04' });
const cancelled = await created(app, headers);
await post(app, headers, `/api/payments/${cancelled.paymentId}/cancel`);
await created(app, headers);
clock.advance(60_000);
// The session of 40 days ago has long expired.
await b.signIn(account.user.email, account.password);

const overview = async (days?: number) =>
  data<Overview>(await b.query('overview', days === undefined ? undefined : { days }));

describe('the overview for 7, 30 and 90 days (kept outcomes, never a scan of payment)', () => {
  test('success rate, median time to complete, top banks and failure reasons of the period', async () => {
    const week = await overview(7);
    expect(week.days).toBe(7);
    expect(week.outcomes).toMatchObject({
      finished: 5,
      completed: 3,
      topBanks: [{ bankId: 'mock-gb-albion', completed: 3 }],
      topFailureReasons: [{ code: 'AM04', count: 1 }],
    });
    expect(week.outcomes.successRate).toBeCloseTo(3 / 5);
    // Two of three took 60 s: the median is within 5 % of it.
    expect(week.outcomes.medianSecondsToComplete).toBeGreaterThan(57);
    expect(week.outcomes.medianSecondsToComplete).toBeLessThan(63);
  });

  test('the period decides what counts; 30 days by default; another period is 400', async () => {
    expect((await overview()).days).toBe(30);
    expect((await overview(30)).outcomes.completed).toBe(3);
    const quarter = await overview(90);
    expect(quarter.outcomes).toMatchObject({ finished: 6, completed: 4 });
    expect(quarter.volume.reduce((sum, day) => sum + day.count, 0)).toBe(4);
    expect((await overview(7)).volume.reduce((sum, day) => sum + day.count, 0)).toBe(3);
    expect(failure(await b.query('overview', { days: 14 }), 400).code).toBe('VALIDATION_FAILED');
  });

  test('nothing finished yet: no rate and no median', async () => {
    const other = new DashboardBrowser(app, '192.0.2.141');
    await other.signUp();
    expect(data<Overview>(await other.query('overview', { days: 7 })).outcomes).toEqual({
      finished: 0,
      completed: 0,
      successRate: null,
      medianSecondsToComplete: null,
      topBanks: [],
      topFailureReasons: [],
    });
  });
});
