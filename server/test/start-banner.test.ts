import { describe, expect, test } from 'vitest';
import { startBanner } from '../src/cli/start-banner.ts';

const base = {
  publicBaseUrl: 'http://localhost:3000',
  seconds: '1.4',
  listening: '127.0.0.1:3000',
  mailInbox: 'none here: mail goes out through SMTP_URL',
  embedded: true,
};

describe("npm start's closing box", () => {
  test('names the site, the dashboard, /docs, the inbox and the first start’s demo credentials, boxed', () => {
    const banner = startBanner({
      ...base,
      demo: {
        organizationId: 'org_1',
        apiKeyId: 'key_1',
        apiKey: 'pis_secretsecret',
        user: { email: 'demo@merchant.example', password: 'correct horse battery' },
      },
    });
    const lines = banner.split('\n');
    expect(lines[0]).toMatch(/^┌─+┐$/);
    expect(lines.at(-1)).toMatch(/^└─+┘$/);
    // One width: a box whose right edge wanders is not a box.
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
    for (const text of [
      'ready in 1.4 s',
      'http://localhost:3000/ ',
      'http://localhost:3000/dashboard',
      'http://localhost:3000/docs',
      'mail inbox  none here: mail goes out through SMTP_URL',
      'demo@merchant.example',
      'correct horse battery',
      'pis_secretsecret',
    ]) {
      expect(banner).toContain(text);
    }
  });

  test('fits an 80-column terminal as `npm start` prints it on this machine (issue 34 item 13)', () => {
    const banner = startBanner({
      ...base,
      listening: '0.0.0.0:3000',
      seconds: '12.3',
      mailInbox: 'http://127.0.0.1:1080/   (MailDev: all mail sent; no SMTP_URL)',
      demo: {
        organizationId: 'org_0123456789abcdef0123456789abcdef',
        apiKeyId: 'key_0123456789abcdef',
        apiKey: `pis_test_${'A'.repeat(48)}`,
        user: { email: 'demo@merchant.example', password: 'x'.repeat(24) },
      },
    });
    for (const line of banner.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  test('a later start names the demo user but has no secret to show', () => {
    const banner = startBanner({ ...base, demo: undefined, mailInbox: 'http://127.0.0.1:1080' });
    expect(banner).toContain('demo@merchant.example (its password was printed at the first start)');
    expect(banner).toContain('mail inbox  http://127.0.0.1:1080');
    expect(banner).not.toContain('password    ');
  });
});
