import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { ACCOUNT_MAIL_LIMITS, spendAccountMail } from '../../src/accounts/mail-budget.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { recordingOutbox, verifiedOwner as verifiedOwnerOf } from './account-mail.ts';

/**
 * Issue 31 item 5: a free sign-up sprayed mail from our domain, a phishing address in its
 * business name ("Resend verification" and invitations as often as it liked, to addresses it
 * chose). Now both are budgeted per recipient address, per member and per organization, and the
 * organization's name stands quoted, defanged, inside the service's own sentence.
 */
const { outbox, mailsTo } = recordingOutbox();
const { app, orm } = await createTestApp({ mail: outbox });
let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.9.${++addresses}`);
const PHISHING = 'URGENT: your bank account is locked, verify at https://phish.example/login';

const verifiedOwner = (businessName?: string) =>
  verifiedOwnerOf(browser(), orm, businessName ? { businessName } : {});

describe('account mail cannot be sprayed', () => {
  test(`"Resend verification": at most ${ACCOUNT_MAIL_LIMITS.toAddressPerHour} mails an hour to one address, then 429 with Retry-After`, async () => {
    const b = browser();
    const session = await b.signUp({ businessName: PHISHING });
    // The sign-up's own mail is the first of the hour's five.
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await b.mutation('account.resendVerification'));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 429, 429, 429]);
    const refused = failure(answers[4] as (typeof answers)[number], 429);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.message).toMatch(/^Too many account mails .*: try again in \d+ minutes?$/);
    expect(Number(answers[4]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(mailsTo(session.user.email, 'verify-email')).toHaveLength(ACCOUNT_MAIL_LIMITS.toAddressPerHour);
  });

  test('invitations: at most 5 an hour to one address and 10 mails an hour per member; nothing stored past them', async () => {
    const { owner } = await verifiedOwner();
    const victim = `victim-${randomUUID()}@inbox.example`;
    const toVictim = [];
    for (let i = 0; i < 6; i++) {
      toVictim.push((await owner.mutation('team.invite', { email: victim, role: 'viewer' })).statusCode);
    }
    expect(toVictim).toEqual([200, 200, 200, 200, 200, 429]);
    expect(mailsTo(victim, 'invitation')).toHaveLength(5);

    const others = [];
    for (let i = 0; i < 6; i++) {
      const email = `other-${i}-${randomUUID()}@inbox.example`;
      others.push({
        email,
        status: (await owner.mutation('team.invite', { email, role: 'viewer' })).statusCode,
      });
    }
    // The member's 10 an hour: its sign-up's own mail, 6 attempts at the victim (a refused one
    // counts too), and 3 more.
    expect(others.map((other) => other.status)).toEqual([200, 200, 200, 429, 429, 429]);
    const last = others.at(-1)?.email ?? '';
    expect(mailsTo(last, 'invitation')).toHaveLength(0);
    const team = data<{ invitations: { email: string }[] }>(await owner.query('team.list'));
    expect(team.invitations.map((invitation) => invitation.email)).not.toContain(last);
  });

  test(`at most ${ACCOUNT_MAIL_LIMITS.perOrganizationPerDay} a day per organization, whichever members send them`, async () => {
    const organizationId = `org_${randomUUID().replaceAll('-', '')}`;
    const results = [];
    for (let i = 0; i <= ACCOUNT_MAIL_LIMITS.perOrganizationPerDay; i++) {
      results.push(
        await spendAccountMail(orm.em, {
          organizationId,
          userId: `usr_${i % 10}_${organizationId}`,
          to: `to-${i}@inbox.example`,
        }),
      );
    }
    expect(results.filter((result) => result.allowed)).toHaveLength(
      ACCOUNT_MAIL_LIMITS.perOrganizationPerDay,
    );
    expect(results.at(-1)?.allowed).toBe(false);
  });

  test('the organization’s name stands quoted and defanged inside our own words, in text and HTML', async () => {
    const { owner, session } = await verifiedOwner(PHISHING);
    const verification = mailsTo(session.user.email, 'verify-email').at(-1)?.message;
    const invitee = `invitee-${randomUUID()}@inbox.example`;
    data(await owner.mutation('team.invite', { email: invitee, role: 'developer' }));
    const invitation = mailsTo(invitee, 'invitation').at(-1)?.message;
    for (const mail of [verification, invitation]) {
      expect(mail).toBeDefined();
      for (const body of [mail?.text ?? '', mail?.html ?? '']) {
        expect(body).not.toContain('https://phish.example');
        expect(body).not.toContain('phish.example');
        expect(body).toContain(
          'the organization named “URGENT: your bank account is locked, verify at hxxps[://]phis…”',
        );
      }
      expect(mail?.subject).not.toContain('URGENT');
    }
  });
});
