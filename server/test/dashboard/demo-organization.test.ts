import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createDemoOrganizationIfEmpty, demoBanner } from '../../src/cli/demo-organization.ts';
import { createLogger } from '../../src/logger.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data } from './dashboard-browser.ts';

describe('first start on an empty database: a demo key and a demo dashboard user, shown once', () => {
  test('the key works, the user signs in, the banner names the key id; a second start creates nothing', async () => {
    // Its own database: the seed only runs when there is no organization at all.
    const lines: string[] = [];
    const logger = createLogger(
      'trace',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const { app, orm, clock, config } = await createTestApp({ logger });
    const demo = await createDemoOrganizationIfEmpty(orm.em.fork(), clock);
    if (!demo) throw new Error('expected a demo organization');

    expectSuccess(
      await app.inject({ method: 'GET', url: '/api/banks', headers: { 'x-api-key': demo.apiKey } }),
    );
    const browser = new DashboardBrowser(app);
    const session = await browser.signIn(demo.user.email, demo.user.password);
    expect(session.organization).toMatchObject({
      id: demo.organizationId,
      name: 'Demo Merchant',
      active: true,
    });
    const keys = data<{ apiKeys: { id: string; name: string }[] }>(
      await browser.query('apiKeys.list'),
    ).apiKeys;
    expect(keys.map(({ id, name }) => ({ id, name }))).toEqual([{ id: demo.apiKeyId, name: 'Demo key' }]);

    const banner = demoBanner(demo, config.publicBaseUrl).join('\n');
    expect(banner).toContain(demo.apiKey);
    expect(banner).toContain(`key id     ${demo.apiKeyId}`);
    expect(banner).toContain(demo.user.password);
    // Nothing secret went through the structured log stream while all this ran.
    const logged = lines.join('');
    expect(logged).not.toContain(demo.apiKey);
    expect(logged).not.toContain(demo.user.password);

    expect(await createDemoOrganizationIfEmpty(orm.em.fork(), clock)).toBeUndefined();
  });
});
