import { chromium } from 'playwright-core';

const [url, out, w, h, full] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: Number(w), height: Number(h) } });
await page.goto(url);
await page.waitForTimeout(1500);
const info = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
console.log(JSON.stringify(info));
await page.screenshot({ path: out, fullPage: full === 'full' });
await browser.close();
