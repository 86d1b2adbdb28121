import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { expectNoSidewaysScroll, openSection, signIn, signUp } from './support/dashboard-steps.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** A signed-out page asks `session()` (401), and a refused form answers 4xx: the browser logs both. */
const EXPECTED = /status of 40[01]/;

const appCode = (setupKey: string) => generate({ secret: setupKey });

/** Presses a button from the keyboard, as someone without a mouse does. */
async function pressButton(page: Page, name: string) {
  const button = page.getByRole('button', { name, exact: true });
  await button.focus();
  await page.keyboard.press('Enter');
}

const isFocused = (locator: ReturnType<Page['getByLabel']>) =>
  locator.evaluate((element) => element === element.ownerDocument.activeElement);

/** The password-and-code form of "New recovery codes" and "Turn off", filled from the keyboard. */
async function reauthenticate(page: Page, password: string, code: string) {
  const passwordField = page.getByLabel('Password', { exact: true });
  await passwordField.waitFor();
  expect(await isFocused(passwordField)).toBe(true);
  await page.keyboard.type(password);
  await page.keyboard.press('Tab');
  expect(await isFocused(page.getByLabel('Code', { exact: true }))).toBe(true);
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

/** Signs in from a new browser at the password step; the page then shows the dashboard or the code step. */
async function signInElsewhere(viewport: typeof PHONE, email: string, password: string) {
  const other = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
  await other.page.goto(`${inject('baseUrl')}/dashboard/sign-in`);
  await signIn(other.page, { email, password });
  return other;
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('two-step verification: new recovery codes and turning it off (%s)', (label, viewport) => {
  it('turn on, make new recovery codes (an old one is refused, a new one signs in), turn off (sign-in asks no code)', async () => {
    const email = `two-step-changes-${label}-${Date.now()}@acme.example`;
    const password = 'saffron kettle border moss 31';
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: EXPECTED,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, { businessName: `Two Step Changes ${label}`, email, password });
    await openSection(page, 'Settings');

    // Turn on, from the keyboard.
    await pressButton(page, 'Set up');
    const setupKey = (await page.getByTestId('setup-key').textContent()) ?? '';
    await page.getByLabel('Code', { exact: true }).focus();
    await page.keyboard.type(await appCode(setupKey));
    await page.keyboard.press('Enter');
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    const firstCodes = await codes.allTextContents();
    expect(firstCodes).toHaveLength(10);
    await page.getByText('Two-step verification is on for your account. Recovery codes left: 10.').waitFor();

    // While the organization requires it, there is no "Turn off", and the page says why.
    await pressButton(page, 'Require it for every member');
    await page
      .getByText('Every member of your organization must use it, so it cannot be turned off.')
      .waitFor();
    expect(await page.getByRole('button', { name: 'Turn off', exact: true }).count()).toBe(0);
    await expectAccessible(page);
    await pressButton(page, 'Stop requiring it for every member');
    await page.getByRole('button', { name: 'Turn off', exact: true }).waitFor();

    // New recovery codes: a wrong password first (refused, nothing changes), then the right one
    // with a recovery code of the first set.
    await pressButton(page, 'New recovery codes');
    await reauthenticate(page, 'not my password at all', firstCodes[0] ?? '');
    await page.getByText('is not your current password').first().waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await page.getByLabel('Password', { exact: true }).fill('');
    await page.getByLabel('Password', { exact: true }).focus();
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    const newHeading = page.getByRole('heading', { name: 'New recovery codes' });
    await newHeading.waitFor();
    // Focus lands on the codes, shown once, with the notice that the old ones are dead.
    await expect.poll(() => isFocused(newHeading)).toBe(true);
    await page.getByText('Your earlier recovery codes no longer work.').waitFor();
    const newCodes = await codes.allTextContents();
    expect(newCodes).toHaveLength(10);
    for (const code of newCodes) expect(firstCodes).not.toContain(code);
    await page.getByRole('button', { name: 'Copy codes' }).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    if (label === 'phone') await screenshot(page, 'two-step-new-codes');

    // At sign-in elsewhere: an old code is refused, a new one signs in.
    const second = await signInElsewhere(viewport, email, password);
    await second.page.getByLabel('Code', { exact: true }).fill(firstCodes[1] ?? '');
    await second.page.getByRole('button', { name: 'Verify' }).click();
    await second.page
      .getByText(/not the current code from your app/)
      .first()
      .waitFor();
    await second.page.getByLabel('Code', { exact: true }).fill(newCodes[0] ?? '');
    await second.page.getByRole('button', { name: 'Verify' }).click();
    await second.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    await second.page.close();

    // Turn off with the password and a new recovery code.
    await page.reload();
    await page.getByText('Two-step verification is on for your account. Recovery codes left: 9.').waitFor();
    await pressButton(page, 'Turn off');
    await page.getByRole('heading', { name: 'Turn off two-step' }).waitFor();
    if (label === 'phone') await screenshot(page, 'two-step-turn-off');
    await reauthenticate(page, password, newCodes[1] ?? '');
    await page.getByText('Two-step verification is off: signing in asks only for your password.').waitFor();
    await page.getByRole('button', { name: 'Set up' }).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // Sign-in asks only for the password now.
    const third = await signInElsewhere(viewport, email, password);
    await third.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
    expect(await third.page.getByLabel('Code', { exact: true }).count()).toBe(0);
    await third.page.close();

    assertNoConsoleErrors();
    await page.close();
  });
});
