import { describe, expect, test } from 'vitest';
import { OrganizationBrand } from '../../src/db/entities/index.ts';
import { contrastRatio, PAGE_BACKGROUND, setBrand } from '../../src/organizations/brand.ts';
import { LOGO_MAX_BYTES } from '../../src/organizations/brand-logo.ts';
import { adminCli, oneJsonLine } from '../helpers/admin-cli.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, paymentBody, tokenOf, trpcData, trpcQuery } from '../payments/payment-fixtures.ts';

/**
 * Hosted pages in the merchant's brand, for verified organizations only (issue 34 item 14): the
 * checks on what a merchant sets (logo, colour), the operator's `org:verify`, and what the
 * customer pages and the logo's address give before and after it.
 */
const { app, orm, clock, factories, databaseUrl } = await createTestApp();
const { admin } = adminCli(databaseUrl);

const SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40" width="40" height="40">
  <title>Shop</title>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#0b57d0"/></linearGradient></defs>
  <circle cx="20" cy="20" r="18" fill="url(#g)"/>
  <path d="M10 20h20" stroke="#fff" stroke-width="4"/>
</svg>`;
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex'),
]);
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const BRAND = { displayName: 'Corner Café', accentColor: '#7a1f5c', logo: b64(SVG) };

async function merchant() {
  const organizationId = await factories.createOrg({ name: 'Corner Cafe Ltd' });
  const { apiKey } = await factories.createKey(organizationId);
  return { organizationId, headers: { 'x-api-key': apiKey } };
}

const storedBrand = (organizationId: string) =>
  orm.em.fork().findOne(OrganizationBrand, { organization: organizationId }, { populate: ['logo'] });

/** A VALIDATION_FAILED naming the field and saying why; nothing stored. */
async function expectRefused(
  organizationId: string,
  input: Parameters<typeof setBrand>[2],
  field: string,
  why: RegExp,
) {
  const failure = await setBrand(orm.em, organizationId, input, clock).then(
    () => null,
    (error: { kind?: string; details?: Array<{ field: string; message: string }> }) => error,
  );
  expect(failure?.kind).toBe('VALIDATION_FAILED');
  expect(failure?.details?.[0]?.field).toBe(field);
  expect(failure?.details?.[0]?.message).toMatch(why);
}

describe('what a merchant may set as its brand', () => {
  test('a brand with an SVG logo is stored rebuilt from the allow-list; a PNG as it is', async () => {
    const { organizationId } = await merchant();
    const settings = await setBrand(orm.em, organizationId, BRAND, clock);
    expect(settings).toMatchObject({ verified: false, displayName: 'Corner Café', accentColor: '#7a1f5c' });
    expect(settings.logoUrl).toMatch(new RegExp(`^/brand-logos/${organizationId}/[0-9a-f]{64}\\.svg$`));
    const stored = await storedBrand(organizationId);
    const svg = Buffer.from(stored?.logo ?? []).toString('utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 40 40"/);
    expect(svg).toContain('fill="url(#g)"');
    expect(svg).not.toContain('<?xml');

    await setBrand(orm.em, organizationId, { ...BRAND, logo: b64(PNG) }, clock);
    expect(Buffer.from((await storedBrand(organizationId))?.logo ?? []).equals(PNG)).toBe(true);
    expect((await storedBrand(organizationId))?.logoType).toBe('image/png');
  });

  test.each([
    ['not an image', b64('GIF89a not a logo at all'), /is not a PNG or SVG image/],
    [
      'an SVG with a script',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      /script/,
    ],
    [
      'an SVG with an event handler',
      b64('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
      /event handler/,
    ],
    [
      'an SVG with an external image',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/x.png"/></svg>'),
      /<image> element|outside it/,
    ],
    [
      'an SVG with an external reference in a paint',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil.example/#x)"/></svg>'),
      /outside it/,
    ],
    [
      'an SVG with xlink:href',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><a xlink:href="javascript:alert(1)"><rect/></a></svg>'),
      /not allowed/,
    ],
    [
      'an SVG with foreignObject',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>hi</p></foreignObject></svg>'),
      /foreignObject/,
    ],
    [
      'an SVG with an entity',
      b64(
        '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>',
      ),
      /DOCTYPE/,
    ],
    [
      'an SVG with a style element',
      b64('<svg xmlns="http://www.w3.org/2000/svg"><style>@import url(x)</style></svg>'),
      /<style>/,
    ],
    ['a broken SVG', b64('<svg xmlns="http://www.w3.org/2000/svg"><rect>'), /well-formed/],
    [
      '5 MB',
      b64(Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)])),
      /too large: a logo may be at most 64 KB/,
    ],
  ])('refused: %s, and nothing stored (an earlier brand kept)', async (_name, logo, why) => {
    const { organizationId } = await merchant();
    await setBrand(orm.em, organizationId, { displayName: 'Before', accentColor: null }, clock);
    await expectRefused(organizationId, { ...BRAND, logo }, 'logo', why);
    const stored = await storedBrand(organizationId);
    expect(stored?.displayName).toBe('Before');
    expect(stored?.logo ?? null).toBeNull();
  });

  test('a logo just over the limit is refused with its size and the limit', async () => {
    const { organizationId } = await merchant();
    const logo = b64(Buffer.concat([PNG, Buffer.alloc(LOGO_MAX_BYTES)]));
    await expectRefused(organizationId, { ...BRAND, logo }, 'logo', /is 65 KB: a logo may be at most 64 KB/);
    expect(await storedBrand(organizationId)).toBeNull();
  });

  test('a colour with no contrast against the page is refused, saying its ratio; AA passes', async () => {
    const { organizationId } = await merchant();
    await expectRefused(
      organizationId,
      { ...BRAND, accentColor: '#ffd700' },
      'accentColor',
      /contrast of 1\.\d:1.*4\.5:1/,
    );
    await expectRefused(organizationId, { ...BRAND, accentColor: 'red' }, 'accentColor', /#rrggbb/);
    expect(await storedBrand(organizationId)).toBeNull();
    expect(contrastRatio('#0b57d0', PAGE_BACKGROUND)).toBeGreaterThan(4.5);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
  });
});

describe('shown only for a verified organization', () => {
  test('unverified: the pages get no brand and the logo is not served; org:verify shows both; withdrawn hides them', async () => {
    const { organizationId, headers } = await merchant();
    const settings = await setBrand(orm.em, organizationId, BRAND, clock);
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const session = async () =>
      trpcData<{ merchantName: string; brand: unknown }>(
        await trpcQuery(app, 'pages.hostedSession', { token: tokenOf(payment.redirectUrl) }),
      );
    const logo = () => app.inject({ method: 'GET', url: settings.logoUrl ?? '' });

    expect(await session()).toMatchObject({ merchantName: 'Corner Cafe Ltd', brand: null });
    expect((await logo()).statusCode).toBe(404);

    const verified = oneJsonLine(await admin('org:verify', '--org', organizationId));
    expect(verified).toMatchObject({ organizationId, verified: true });
    expect((await session()).brand).toEqual({
      displayName: 'Corner Café',
      accentColor: '#7a1f5c',
      logoUrl: settings.logoUrl,
    });
    const served = await logo();
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    );
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.body).toContain('<circle cx="20"');
    // Another organization's id with this hash, or another hash: nothing.
    expect(
      (await app.inject({ method: 'GET', url: `/brand-logos/org_nope/${'a'.repeat(64)}.svg` })).statusCode,
    ).toBe(404);

    oneJsonLine(await admin('org:verify', '--org', organizationId, '--verified', 'false'));
    expect((await session()).brand).toBeNull();
    expect((await logo()).statusCode).toBe(404);
  });

  test('the Mock bank page gets the brand too once verified', async () => {
    const { organizationId, headers } = await merchant();
    await setBrand(orm.em, organizationId, { displayName: null, accentColor: '#14532d' }, clock);
    oneJsonLine(await admin('org:verify', '--org', organizationId));
    const payment = await created(app, headers, paymentBody());
    const session = trpcData<{ brand: unknown }>(
      await trpcQuery(app, 'pages.mockBankSession', { token: tokenOf(payment.redirectUrl) }),
    );
    expect(session.brand).toEqual({ displayName: '', accentColor: '#14532d', logoUrl: null });
  });

  test('org:verify names an unknown organization as such', async () => {
    const result = await admin('org:verify', '--org', 'org_doesnotexist');
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/org_doesnotexist/);
  });
});
