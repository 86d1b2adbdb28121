import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, PHONE } from './support/browser.ts';
import { expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';
import { linkIn, mailTo } from './support/mail-inbox.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** A signed-out page asks `session()` (401), and a refused form answers 4xx: the browser logs both. */
const EXPECTED = /status of 40[01]/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('account lifecycle through the mail (%s)', (label, viewport) => {
  it('verify the email, forget the password, reset it from the mailed link, change it, sign out everywhere', async () => {
    const email = `lifecycle-${label}-${Date.now()}@acme.example`;
    const first = 'amber falcon ledger tide 7';
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: EXPECTED,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, { businessName: `Lifecycle <${label}> & Co`, email, password: first });
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor({ timeout: 30_000 });
    // Signed in at once; the banner says why the address matters.
    await page.getByText(/Confirm your email address \(/).waitFor();
    await expectAccessible(page);

    const verify = await mailTo(email, 'Confirm your email address');
    expect(verify.text).toContain(`Lifecycle <${label}> & Co`);
    await page.goto(linkIn(verify));
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Confirm email address' }).click();
    await page.getByText(`${email} is confirmed.`).waitFor();

    // A second browser signed in elsewhere, to be signed out everywhere later.
    const other = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
    await other.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await other.page.getByLabel('Email').fill(email);
    await other.page.getByLabel('Password').fill(first);
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    // Forgot password, from a signed-out browser.
    const stranger = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
    await stranger.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await stranger.page.getByRole('link', { name: 'Forgot password?' }).click();
    await stranger.page.getByLabel('Email').fill(email);
    await stranger.page.getByRole('button', { name: 'Send reset link' }).click();
    await stranger.page.getByText(`If an account uses ${email}`).waitFor();
    await expectAccessible(stranger.page);
    const reset = await mailTo(email, 'Reset your password');
    await stranger.page.goto(linkIn(reset));
    await stranger.page.getByLabel('New password').fill('password1234');
    await stranger.page.getByRole('button', { name: 'Set new password' }).click();
    await stranger.page
      .getByText(/too easy to guess/)
      .first()
      .waitFor();
    await expectAccessible(stranger.page);
    const second = 'copper meadow signal quartz 19';
    await stranger.page.getByLabel('New password').fill(second);
    await stranger.page.getByRole('button', { name: 'Set new password' }).click();
    await stranger.page.getByText('Your password is set and every session was signed out.').waitFor();
    await expectNoSidewaysScroll(stranger.page);

    // The reset ended both sessions: sign in again with the new password, then change it in Settings.
    await page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(second);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await openSection(page, 'Settings');
    const third = 'harbor violet engine prism 88';
    await page.getByLabel('Current password').first().fill(second);
    await page.getByLabel('New password').fill(third);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/Password changed\./).waitFor();
    await mailTo(email, 'Your password was changed');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // Sign in on the other browser again, then end it from here.
    await other.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
    await other.page.getByLabel('Email').fill(email);
    await other.page.getByLabel('Password').fill(third);
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('Signed out everywhere else: 1 session(s) ended.').waitFor();
    await other.page.reload();
    await other.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assertNoConsoleErrors();
  });
});
