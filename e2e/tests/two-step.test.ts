import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, PHONE } from './support/browser.ts';
import { expectNoSidewaysScroll, openSection, signIn, signUp } from './support/dashboard-steps.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** A signed-out page asks `session()` (401), and a refused form answers 4xx: the browser logs both. */
const EXPECTED = /status of 40[01]/;

/** RFC 6238 time steps of 30 s; otplib's `epoch` is in Unix seconds. */
const STEP_SECONDS = 30;
const currentStep = () => Math.floor(Date.now() / 1000 / STEP_SECONDS);

/** The authenticator app: its code for a setup key at time step `step` (RFC 6238). */
const appCode = (setupKey: string, step: number) =>
  generate({ secret: setupKey, epoch: step * STEP_SECONDS });

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('two-step verification (%s)', (label, viewport) => {
  it('set up from Settings with the setup key, recovery codes shown once, then sign-in asks for the code', async () => {
    const email = `two-step-${label}-${Date.now()}@acme.example`;
    const password = 'saffron kettle border moss 31';
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: EXPECTED,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, { businessName: `Two Step ${label}`, email, password });
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor({ timeout: 30_000 });

    await openSection(page, 'Settings');
    await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await page.getByText('Setup key', { exact: true }).waitFor();
    const setupKey = (await page.getByTestId('setup-key').textContent()) ?? '';
    expect(setupKey).toMatch(/^[A-Z2-7]{26,}$/);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // A wrong code first: refused, nothing turned on.
    await page.getByLabel('Code', { exact: true }).fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page
      .getByText(/not the current code from your app/)
      .first()
      .waitFor();
    // The app's code now. A code is accepted once, and a code of that step or an earlier one is
    // refused after it: the sign-in below uses the next step's code, which the server accepts
    // (one step of clock drift either way) without waiting up to 30 s for that step to come.
    const setupStep = currentStep();
    await page.getByLabel('Code', { exact: true }).fill(await appCode(setupKey, setupStep));
    await page.getByRole('button', { name: 'Verify' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    const recoveryCodes = await codes.allTextContents();
    await page.getByText('Two-step verification is on for your account. Recovery codes left: 10.').waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // Reloaded, the codes are gone for good.
    await page.reload();
    await page.getByText('Two-step verification is on for your account. Recovery codes left: 10.').waitFor();
    expect(await page.getByRole('list', { name: 'Recovery codes' }).count()).toBe(0);

    // Another browser: the password alone does not sign in; the code does.
    const other = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
    await other.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await signIn(other.page, { email, password });
    await other.page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
    await expectAccessible(other.page);
    await expectNoSidewaysScroll(other.page);
    // A later step's code than setup's (the next one; the current one if a step went by since).
    const code = await appCode(setupKey, Math.max(setupStep + 1, currentStep()));
    await other.page.getByLabel('Code', { exact: true }).fill(code);
    await other.page.getByRole('button', { name: 'Verify' }).click();
    await other.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    // The same code again, in its own window, from a third browser: refused.
    const third = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
    await third.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await signIn(third.page, { email, password });
    await third.page.getByLabel('Code', { exact: true }).fill(code);
    await third.page.getByRole('button', { name: 'Verify' }).click();
    await third.page
      .getByText(/was already used/)
      .first()
      .waitFor();
    // A recovery code still signs in.
    await third.page.getByLabel('Code', { exact: true }).fill(recoveryCodes[0] ?? '');
    await third.page.getByRole('button', { name: 'Verify' }).click();
    await third.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    await other.page.close();
    await third.page.close();
    assertNoConsoleErrors();
    await page.close();
  });
});
