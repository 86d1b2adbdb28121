import type { Page } from 'playwright-core';
import { MERCHANT_ORIGIN } from './merchant-api.ts';

/** What a customer does on the pages, in the words the pages use. */

export async function logInAtMockBank(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Approve payment' }).waitFor();
}

export async function pickCustomSeconds(page: Page, seconds: number): Promise<void> {
  await page.getByRole('radio', { name: 'Custom' }).check();
  await page.getByLabel(/Complete after/).fill(String(seconds));
}

/** Waits for the return to the merchant and reads the query the service added. */
export async function returnedToMerchant(page: Page): Promise<URLSearchParams> {
  await page.waitForURL(`${MERCHANT_ORIGIN}/**`);
  return new URL(page.url()).searchParams;
}
