import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';
import {
  callApi,
  createApiKey,
  expectNoSidewaysScroll,
  openSection,
  PAYMENT_BODY,
  signUp,
} from './support/dashboard-steps.ts';

/**
 * The console shows its data (issue 34 item 8): a one-line header at 1280 px, a two-line one at
 * 1024 px that hides no section, and a one-line section list on a phone; eight payments above the
 * fold at 1280x800 with the filters, no table scrolling sideways at 1280 px, and search, status
 * and dates applying together (an amount too).
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;
const PHONE_SHORT = { width: 375, height: 667 };

/**
 * A merchant with 8 payments: 4 FAILED (one of £18.40) and 4 still waiting at the Mock bank;
 * 12 API writes, all a new sign-up's budget (a tenth of 120 a minute) allows.
 */
async function merchantWithPayments(page: Page, label: string) {
  await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
  await signUp(page, {
    businessName: `Fits ${label} Trading Company With A Long Registered Name Ltd`,
    email: `fits-${label}-${Date.now()}@shop.example`,
    password: 'a long enough passphrase',
  });
  await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
  await openSection(page, 'API keys');
  const apiKey = await createApiKey(page, 'Till');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  for (let n = 0; n < 8; n++) {
    const failed = n < 4;
    const value = n === 0 ? '18.40' : `${failed ? 10 : 20}.0${n % 10}`;
    const made = await callApi(apiKey, 'POST', '/payments', {
      ...PAYMENT_BODY,
      amount: { value, currency: 'GBP' },
      reference: `${failed ? 'FAIL' : 'OPEN'}-${n}`,
    });
    expect(made.status).toBe(201);
    if (failed) {
      const id = (made.body.data as { paymentId: string }).paymentId;
      expect((await callApi(apiKey, 'POST', `/payments/${id}/mock-bank/reject`, {})).status).toBe(200);
    }
  }
}

/** Rows of the payments table whose bottom is within the first screen. */
const rowsAboveTheFold = (page: Page) =>
  page.evaluate(
    () =>
      Array.from(document.querySelectorAll('.table tbody tr')).filter(
        (row) => row.getBoundingClientRect().bottom <= window.innerHeight,
      ).length,
  );

/** Every table region of the page fits its width (none scrolls sideways). */
async function expectNoTableScroll(page: Page) {
  const overflowing = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.table-scroll'))
      .filter((region) => region.scrollWidth > region.clientWidth + 1)
      .map((region) => region.getAttribute('aria-label') ?? region.getAttribute('aria-labelledby')),
  );
  expect(overflowing).toEqual([]);
}

const box = async (page: Page, selector: string) => {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} not shown`);
  return found;
};

const listCount = (page: Page) => page.locator('.pager__count').textContent();

/**
 * What the filters cut off: each date field narrower than its own text (measured on a copy sized
 * to its content, hidden beside it), and each filter or button past the form's right edge.
 */
const filtersCutOff = (page: Page) =>
  page.evaluate(() => {
    const form = document.querySelector('form.filters');
    if (!form) throw new Error('no filters');
    const cut = Array.from(form.querySelectorAll<HTMLInputElement>('input[type="date"]'))
      .filter((field) => {
        const copy = field.cloneNode() as HTMLInputElement;
        copy.value = field.value;
        copy.style.cssText =
          'field-sizing: content; width: auto; min-width: 0; position: absolute; visibility: hidden';
        field.after(copy);
        const needed = copy.getBoundingClientRect().width;
        copy.remove();
        return field.getBoundingClientRect().width + 0.5 < needed;
      })
      .map((field) => field.labels?.[0]?.textContent ?? field.name);
    const edge = form.getBoundingClientRect().right;
    const outside = Array.from(form.querySelectorAll<HTMLElement>('input, select, .button'))
      .filter((control) => control.getBoundingClientRect().right > edge + 0.5)
      .map((control) => control.textContent || control.getAttribute('aria-label') || control.tagName);
    return [...cut, ...outside];
  });

/**
 * What the header hides at this width: each section out of the line's view (it scrolls within
 * itself only where the sections take a line of their own, on a phone), and the organization's
 * name when it is given less than 10rem while its text needs more.
 */
const headerCutOff = (page: Page) =>
  page.evaluate(() => {
    const nav = document.querySelector('.dash-nav');
    const brand = document.querySelector<HTMLElement>('.dash-bar__brand');
    if (!nav || !brand) throw new Error('no header');
    const shown = nav.getBoundingClientRect();
    const sections = Array.from(nav.querySelectorAll('a'))
      .filter((link) => {
        const at = link.getBoundingClientRect();
        return at.left < shown.left - 0.5 || at.right > shown.right + 0.5;
      })
      .map((link) => link.textContent);
    const remWide = parseFloat(getComputedStyle(document.documentElement).fontSize) * 10;
    const brandCut = brand.clientWidth < Math.min(brand.scrollWidth, remWide) ? ['the organization'] : [];
    return [...brandCut, ...sections];
  });

describe('the console shows its data', () => {
  it('at 1280x800: one-line header, 8 rows above the fold with the filters, no table scrolls sideways', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport: DESKTOP,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await merchantWithPayments(page, 'desktop');
    await openSection(page, 'Payments');
    await page.getByRole('link', { name: '£18.40' }).waitFor();

    // The header: one line, whatever the organization's name.
    const bar = await box(page, '.dash-bar');
    const nav = await box(page, '.dash-nav');
    const signOut = await box(page, '.dash-bar__signout');
    expect(bar.height).toBeLessThanOrEqual(60);
    expect(Math.abs(nav.y - bar.y)).toBeLessThanOrEqual(8);
    expect(Math.abs(signOut.y + signOut.height / 2 - (nav.y + nav.height / 2))).toBeLessThanOrEqual(4);
    expect(await headerCutOff(page)).toEqual([]);
    // A section reached with the keyboard shows its whole focus ring: the section line scrolls
    // sideways, and clips whatever is drawn outside it.
    const team = page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' });
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).focus();
    await page.keyboard.press('Tab');
    expect(await team.evaluate((link) => link === document.activeElement)).toBe(true);
    const ringClipped = await team.evaluate((link) => {
      const style = getComputedStyle(link);
      const outside = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
      const ring = link.getBoundingClientRect();
      const line = (link.closest('.dash-nav') as HTMLElement).getBoundingClientRect();
      return (
        style.outlineStyle === 'none' ||
        ring.top - outside < line.top - 0.5 ||
        ring.bottom + outside > line.bottom + 0.5
      );
    });
    expect(ringClipped).toBe(false);

    // The filters and at least 8 payments on the first screen.
    const search = await box(page, 'input[type="search"]');
    expect(search.y + search.height).toBeLessThanOrEqual(DESKTOP.height);
    expect(await rowsAboveTheFold(page)).toBeGreaterThanOrEqual(8);
    await expectNoTableScroll(page);
    // The dates show their whole text, empty or filled, and nothing leaves the row; nor at a
    // narrower screen, where the filters take two columns instead.
    expect(await filtersCutOff(page)).toEqual([]);
    await page.getByLabel('From').fill('2026-11-29');
    await page.getByLabel('To').fill('2026-12-31');
    expect(await filtersCutOff(page)).toEqual([]);
    await page.setViewportSize({ width: 1024, height: 768 });
    expect(await filtersCutOff(page)).toEqual([]);
    // A laptop's width: the header takes two lines rather than hide a section or the name.
    expect(await headerCutOff(page)).toEqual([]);
    // and the filters use its width: two rows of three, the buttons in the sixth place.
    const filterRows = await page.evaluate(
      () =>
        new Set(
          // A cell's row starts at its top margin (the buttons' lines them up with the fields).
          Array.from(document.querySelectorAll('form.filters > *')).map((cell) =>
            Math.round(cell.getBoundingClientRect().top - parseFloat(getComputedStyle(cell).marginTop)),
          ),
        ).size,
    );
    expect(filterRows).toBe(2);
    await page.setViewportSize(DESKTOP);
    await expectAccessible(page);
    await screenshot(page, 'console-fits-payments');

    for (const section of ['API keys', 'Request log', 'Audit log'] as const) {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: section }).click();
      await page.getByRole('heading', { level: 1, name: section }).waitFor();
      await page.locator('.table tbody tr').first().waitFor();
      await expectNoTableScroll(page);
      await expectNoSidewaysScroll(page);
    }
    assertNoConsoleErrors();
  });

  it('at 375x667: the sections are one line, the header a small part of the screen', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport: PHONE_SHORT,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await merchantWithPayments(page, 'phone');
    await openSection(page, 'Payments');
    await page.getByRole('link', { name: '£18.40' }).waitFor();
    const bar = await box(page, '.dash-bar');
    const nav = await box(page, '.dash-nav');
    expect(nav.height).toBeLessThanOrEqual(52);
    expect(bar.height).toBeLessThanOrEqual(120);
    // Every section is still reachable: the last one is in the line (it scrolls within itself).
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await expectNoSidewaysScroll(page);
    await expectAccessible(page);
    await screenshot(page, 'console-fits-audit-log');
    assertNoConsoleErrors();
  });

  it('search, status and dates apply together; a cleared search is cleared; an exact amount is found', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport: DESKTOP,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await merchantWithPayments(page, 'filters');
    await openSection(page, 'Payments');
    await page.getByRole('link', { name: '£18.40' }).waitFor();
    const searchBox = page.getByRole('searchbox', { name: 'Search' });
    const status = page.getByLabel('Status');

    // A search with no match, then emptied: every payment again, and then "Failed" shows the 4.
    await searchBox.fill('no such payment');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No payments match these filters.').waitFor();
    await searchBox.fill('');
    await page.waitForFunction(() => !new URL(window.location.href).searchParams.has('search'));
    await status.selectOption({ label: 'Failed' });
    await page.waitForFunction(() => document.querySelector('.pager__count')?.textContent === '1–4 of 4');

    // A search typed but not yet sent applies with the status picked after it.
    await status.selectOption({ label: 'All statuses' });
    await page.waitForFunction(() => document.querySelector('.pager__count')?.textContent === '1–8 of 8');
    await searchBox.fill('OPEN-');
    await status.selectOption({ label: 'Failed' });
    await page.getByText('No payments match these filters.').waitFor();
    await searchBox.fill('FAIL-');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelector('.pager__count')?.textContent === '1–4 of 4');

    // The day's range keeps both.
    const today = await page.evaluate(() => {
      const now = new Date();
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
    });
    await page.getByLabel('From').fill(today);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => new URL(window.location.href).searchParams.has('from'));
    expect(await listCount(page)).toBe('1–4 of 4');
    const address = new URL(page.url()).searchParams;
    expect([address.get('search'), address.get('status'), address.get('from')]).toEqual([
      'FAIL-',
      'FAILED',
      today,
    ]);

    // An exact amount, with the status still on.
    await searchBox.fill('18.40');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelector('.pager__count')?.textContent === '1–1 of 1');
    await page.getByRole('link', { name: '£18.40' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'console-fits-filters');
    assertNoConsoleErrors();
  });
});
