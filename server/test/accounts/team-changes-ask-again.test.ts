import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { RECENT_SIGN_IN_MS } from '../../src/accounts/sessions.ts';
import type { MailPurpose } from '../../src/mail/mail-message.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { recordingOutbox, verifiedOwner as verifiedOwnerOf } from './account-mail.ts';
import { appCode, signUpWithTwoStep } from './two-step-steps.ts';

/**
 * Issue 31 items 6 and 7: an Owner can withdraw an invitation; team changes on a session signed
 * in over 15 minutes ago ask for the password or a two-step code; "Sign out everywhere" and a
 * password change withdraw the invitations the ended sessions made and kill reset links (so do a
 * new email); password, email, sign-out-everywhere and test/live switches are audited.
 */
const { sent, outbox } = recordingOutbox();
const { app, orm, clock } = await createTestApp({ mail: outbox });
let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.7.${++addresses}`);
const PASSWORD_CHANGE = 'orbit canyon velvet lantern 17';

const tokenOf = (to: string, purpose: MailPurpose) => {
  const mail = sent.filter((entry) => entry.message.to === to && entry.purpose === purpose).at(-1);
  const token = mail && /#token=([A-Za-z0-9_-]{43})/.exec(mail.message.text)?.[1];
  if (!token) throw new Error(`no ${purpose} mail to ${to}`);
  return token;
};
const newAddress = (what: string) => `${what}-${randomUUID()}@team.example`;

const verifiedOwner = () => verifiedOwnerOf(browser(), orm);
/** A second browser signed in as the same member (another session). */
async function secondSession(email: string, password: string) {
  const other = browser();
  await other.signIn(email, password);
  return other;
}
const auditActions = async (organizationId: string) =>
  (
    await orm.em
      .fork()
      .execute<{ action: string }[]>('select action from audit_log where organization_id = ? order by id', [
        organizationId,
      ])
  ).map((row) => row.action);

describe('an Owner withdraws an invitation', () => {
  test('the link then answers that it was withdrawn, and the team no longer lists it', async () => {
    const { owner } = await verifiedOwner();
    const email = newAddress('withdrawn');
    data(await owner.mutation('team.invite', { email, role: 'developer' }));
    const token = tokenOf(email, 'invitation');
    expect(data(await owner.mutation('team.withdrawInvitation', { email }))).toEqual({
      withdrawn: true,
      email,
    });

    const opened = failure(await browser().query('account.invitation', { token }), 410);
    expect(opened.message).toBe('This invitation was withdrawn: ask the organization for a new one.');
    failure(await browser().mutation('account.acceptInvitation', { token, password: PASSWORD_CHANGE }), 410);
    const team = data<{ invitations: { email: string }[] }>(await owner.query('team.list'));
    expect(team.invitations.map((invitation) => invitation.email)).not.toContain(email);
    // Twice, or an address never invited: nothing open to withdraw.
    failure(await owner.mutation('team.withdrawInvitation', { email }), 404);
  });
});

describe('team changes ask again after 15 minutes', () => {
  test('invite, role, removal and withdrawal are refused until the password is confirmed', async () => {
    const { owner, session } = await verifiedOwner();
    const invited = newAddress('early');
    data(await owner.mutation('team.invite', { email: invited, role: 'viewer' }));
    clock.advance(RECENT_SIGN_IN_MS + 60_000);

    const refusals = [
      await owner.mutation('team.invite', { email: newAddress('late'), role: 'owner' }),
      await owner.mutation('team.setRole', { userId: session.user.id, role: 'owner' }),
      await owner.mutation('team.remove', { userId: 'usr_someone' }),
      await owner.mutation('team.withdrawInvitation', { email: invited }),
      // The brand a verified organization's customers see (adversarial review of issue 34, M1).
      await owner.mutation('settings.setBrand', { displayName: 'Barclays', accentColor: '#00395d' }),
    ];
    for (const refused of refusals) {
      const error = failure(refused, 403);
      expect(error.message).toMatch(/^Confirm it is you first/);
      expect((refused.json() as { error: { data: { kind: string } } }).error.data.kind).toBe(
        'REAUTHENTICATION_REQUIRED',
      );
    }
    expect(
      failure(await owner.mutation('account.confirmIdentity', { password: 'not the password at all' }), 400)
        .details?.[0]?.field,
    ).toBe('password');
    expect(
      data(await owner.mutation('account.confirmIdentity', { password: session.password })),
    ).toMatchObject({
      confirmedAt: clock.now().toISOString(),
    });
    data(await owner.mutation('team.withdrawInvitation', { email: invited }));
    data(await owner.mutation('team.invite', { email: newAddress('confirmed'), role: 'viewer' }));
    expect(await auditActions(session.organization.id)).toContain('session.identity_confirmed');
  });

  test('a member with two-step confirms with a code instead', async () => {
    const owner = browser();
    const { session, setup } = await signUpWithTwoStep(owner, clock);
    await orm.em
      .fork()
      .getConnection()
      .execute('update dashboard_user set email_verified_at = now() where id = ?', [session.user.id]);
    clock.advance(RECENT_SIGN_IN_MS + 60_000);
    failure(await owner.mutation('team.invite', { email: newAddress('code'), role: 'viewer' }), 403);
    data(await owner.mutation('account.confirmIdentity', { code: await appCode(clock, setup.setupKey) }));
    data(await owner.mutation('team.invite', { email: newAddress('code'), role: 'viewer' }));
  });
});

describe('what the review of these fixes found (a stolen session signed in long ago)', () => {
  test('two-step set up on this session cannot confirm it; the password still can', async () => {
    const { owner, session } = await verifiedOwner();
    // Set up on this session (recently signed in), after its sign-in: it cannot vouch for it later.
    clock.advance(60_000);
    const setup = data<{ setupKey: string }>(await owner.mutation('account.beginTwoStep'));
    data(await owner.mutation('account.confirmTwoStep', { code: await appCode(clock, setup.setupKey) }));
    clock.advance(RECENT_SIGN_IN_MS);
    const refused = failure(
      await owner.mutation('account.confirmIdentity', { code: await appCode(clock, setup.setupKey) }),
      400,
    );
    expect(refused.details?.[0]?.field).toBe('code');
    failure(await owner.mutation('team.invite', { email: newAddress('thief'), role: 'owner' }), 403);
    data(await owner.mutation('account.confirmIdentity', { password: session.password }));
    data(await owner.mutation('team.invite', { email: newAddress('owner'), role: 'viewer' }));
  });

  test('a new API key and the team’s two-step rule ask again too', async () => {
    const { owner, session } = await verifiedOwner();
    clock.advance(RECENT_SIGN_IN_MS + 60_000);
    for (const refused of [
      await owner.mutation('apiKeys.create', { name: 'Backdoor', permissions: ['read', 'write'] }),
      await owner.mutation('account.requireTwoStep', { required: false }),
    ]) {
      expect(failure(refused, 403).message).toMatch(/^Confirm it is you first/);
    }
    data(await owner.mutation('account.confirmIdentity', { password: session.password }));
    data(await owner.mutation('apiKeys.create', { name: 'Server', permissions: ['read'] }));
  });

  test('removing or demoting an Owner withdraws the invitations they made', async () => {
    const { owner } = await verifiedOwner();
    const rogueEmail = newAddress('rogue');
    data(await owner.mutation('team.invite', { email: rogueEmail, role: 'owner' }));
    const rogue = browser();
    const rogueSession = data<{ user: { id: string }; csrfToken: string }>(
      await rogue.mutation('account.acceptInvitation', {
        token: tokenOf(rogueEmail, 'invitation'),
        password: PASSWORD_CHANGE,
      }),
    );
    rogue.csrfToken = rogueSession.csrfToken;
    const accomplices = [newAddress('accomplice'), newAddress('accomplice')];
    for (const email of accomplices) data(await rogue.mutation('team.invite', { email, role: 'owner' }));
    data(await owner.mutation('team.setRole', { userId: rogueSession.user.id, role: 'viewer' }));
    failure(
      await browser().query('account.invitation', { token: tokenOf(accomplices[0] ?? '', 'invitation') }),
      410,
    );
    data(await owner.mutation('team.remove', { userId: rogueSession.user.id }));
    failure(
      await browser().query('account.invitation', { token: tokenOf(accomplices[1] ?? '', 'invitation') }),
      410,
    );
  });

  test('notices to an unverified address have a budget of their own: a password changed in a loop mails 5 an hour', async () => {
    const b = browser();
    const session = await b.signUp();
    let password = session.password;
    for (let change = 0; change < 7; change++) {
      const next = `amber falcon ledger tide ${70 + change}`;
      data(await b.mutation('account.changePassword', { currentPassword: password, newPassword: next }));
      password = next;
    }
    // The sign-up's verification mail, and five of the seven notices.
    expect(
      sent.filter((mail) => mail.message.to === session.user.email && mail.purpose === 'password-changed'),
    ).toHaveLength(5);
    expect(sent.filter((mail) => mail.message.to === session.user.email)).toHaveLength(6);
  });
});

describe('the second review: the owner’s alarms cannot be starved', () => {
  test('a verified member: "Resend" spends nothing, and two-step turned on is always told', async () => {
    const { owner, session } = await verifiedOwner();
    for (let resend = 0; resend < 6; resend++) {
      expect(failure(await owner.mutation('account.resendVerification'), 400).details?.[0]).toEqual({
        field: 'email',
        message: 'is already confirmed',
      });
    }
    const setup = data<{ setupKey: string }>(await owner.mutation('account.beginTwoStep'));
    data(await owner.mutation('account.confirmTwoStep', { code: await appCode(clock, setup.setupKey) }));
    expect(
      sent.filter((mail) => mail.message.to === session.user.email && mail.purpose === 'two-step-changed'),
    ).toHaveLength(1);
  });

  test('a new second factor from a session signed in long ago asks again', async () => {
    const { owner } = await verifiedOwner();
    clock.advance(RECENT_SIGN_IN_MS + 60_000);
    expect(failure(await owner.mutation('account.beginTwoStep'), 403).message).toMatch(
      /^Confirm it is you first/,
    );
  });
});

describe('what an ended session set going dies with it', () => {
  test('"Sign out everywhere" withdraws the invitations the other sessions made and kills reset links', async () => {
    const { owner, session } = await verifiedOwner();
    const stolen = await secondSession(session.user.email, session.password);
    const byThief = newAddress('thief');
    data(await stolen.mutation('team.invite', { email: byThief, role: 'owner' }));
    const byOwner = newAddress('own');
    data(await owner.mutation('team.invite', { email: byOwner, role: 'viewer' }));
    await browser().mutation('account.requestPasswordReset', { email: session.user.email });
    await expect
      .poll(() =>
        sent.some((mail) => mail.message.to === session.user.email && mail.purpose === 'password-reset'),
      )
      .toBe(true);
    const reset = tokenOf(session.user.email, 'password-reset');

    data(await owner.mutation('account.signOutEverywhere'));
    failure(await browser().query('account.invitation', { token: tokenOf(byThief, 'invitation') }), 410);
    data(await browser().query('account.invitation', { token: tokenOf(byOwner, 'invitation') }));
    failure(
      await browser().mutation('account.resetPassword', { token: reset, password: PASSWORD_CHANGE }),
      400,
    );
    expect(await auditActions(session.organization.id)).toContain('session.signed_out_everywhere');
  });

  test('a password change does the same; a new email kills reset links too; both audited', async () => {
    const { owner, session } = await verifiedOwner();
    const stolen = await secondSession(session.user.email, session.password);
    const byThief = newAddress('thief');
    data(await stolen.mutation('team.invite', { email: byThief, role: 'developer' }));
    data(
      await owner.mutation('account.changePassword', {
        currentPassword: session.password,
        newPassword: PASSWORD_CHANGE,
      }),
    );
    failure(await browser().query('account.invitation', { token: tokenOf(byThief, 'invitation') }), 410);

    await browser().mutation('account.requestPasswordReset', { email: session.user.email });
    await expect
      .poll(() =>
        sent.some((mail) => mail.message.to === session.user.email && mail.purpose === 'password-reset'),
      )
      .toBe(true);
    const reset = tokenOf(session.user.email, 'password-reset');
    data(
      await owner.mutation('account.changeEmail', { password: PASSWORD_CHANGE, newEmail: newAddress('new') }),
    );
    failure(
      await browser().mutation('account.resetPassword', {
        token: reset,
        password: 'meadow juniper socket 88',
      }),
      400,
    );

    data(await owner.mutation('account.setMode', { mode: 'test' }));
    const actions = await auditActions(session.organization.id);
    for (const action of ['account.password_changed', 'account.email_changed', 'session.mode_changed']) {
      expect(actions).toContain(action);
    }
  });
});
