import type { DashboardSession } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { recordingOutbox, verifiedOwner as verifiedOwnerOf } from './account-mail.ts';

/** Issue 24, item 5: invitations, roles enforced in the procedures, the last owner, removal. */
const { sent, outbox } = recordingOutbox();
const { app, orm } = await createTestApp({ mail: outbox });

let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.2.${++addresses}`);
const PASSWORD = 'juniper socket meadow glass 64';

async function invitationTo(email: string) {
  const mail = sent.filter((entry) => entry.message.to === email && entry.purpose === 'invitation').at(-1);
  const token = mail && /accept-invitation#token=([A-Za-z0-9_-]{43})/.exec(mail.message.text)?.[1];
  if (!token) throw new Error(`no invitation to ${email}`);
  return { token, mail: mail.message };
}

/** An owner whose address is verified (invitations wait for it). */
const verifiedOwner = () => verifiedOwnerOf(browser(), orm);

async function join(owner: DashboardBrowser, role: string) {
  const email = `${role}-${Date.now()}-${++addresses}@team.example`;
  data(await owner.mutation('team.invite', { email, role }));
  const { token } = await invitationTo(email);
  const member = browser();
  const session = data<DashboardSession>(
    await member.mutation('account.acceptInvitation', { token, password: PASSWORD }),
  );
  member.csrfToken = session.csrfToken;
  return { member, session, token, email };
}

describe('invitations', () => {
  test('wait for the inviter to verify their address; a link joins once, with its role, signed in', async () => {
    const unverified = browser();
    await unverified.signUp();
    expect(
      failure(await unverified.mutation('team.invite', { email: 'x@team.example', role: 'viewer' }), 403)
        .message,
    ).toMatch(/Confirm your email address first/);

    const { owner, session: ownerSession } = await verifiedOwner();
    const email = `new-${Date.now()}@team.example`;
    expect(data(await owner.mutation('team.invite', { email, role: 'developer' }))).toEqual({
      invited: true,
      email,
      role: 'developer',
    });
    const { token, mail } = await invitationTo(email);
    expect(mail.text).toContain('as Developer');
    expect(mail.text).toContain('7 days');
    // The page shows what is offered before a password is chosen.
    const visitor = browser();
    expect(data(await visitor.query('account.invitation', { token }))).toEqual({
      email,
      role: 'developer',
      organizationName: ownerSession.organization.name,
      invitedBy: ownerSession.user.email,
    });
    // Someone signed in cannot accept it.
    expect(
      failure(await owner.mutation('account.acceptInvitation', { token, password: PASSWORD }), 403).message,
    ).toMatch(/You are signed in as/);
    // A weak password does not spend it.
    expect(
      failure(
        await visitor.mutation('account.acceptInvitation', { token, password: 'passwordpassword' }),
        400,
      ).code,
    ).toBe('VALIDATION_FAILED');
    const joined = data<DashboardSession>(
      await visitor.mutation('account.acceptInvitation', { token, password: PASSWORD }),
    );
    expect(joined.user).toMatchObject({ email, emailVerified: true, role: 'developer' });
    expect(joined.organization.id).toBe(ownerSession.organization.id);
    // Single use; tampered is invalid too.
    const again = browser();
    expect(
      failure(await again.mutation('account.acceptInvitation', { token, password: PASSWORD }), 400).code,
    ).toBe('LINK_INVALID');
    expect(
      failure(await again.query('account.invitation', { token: `${token.slice(0, -2)}AA` }), 400).code,
    ).toBe('LINK_INVALID');
    const team = data<{ members: { email: string; role: string }[] }>(await owner.query('team.list'));
    expect(team.members.map((member) => [member.email, member.role])).toEqual([
      [ownerSession.user.email, 'owner'],
      [email, 'developer'],
    ]);
    // Every change is in the audit log.
    const [actions = {}] = await orm.em
      .fork()
      .getConnection()
      .execute(
        `select array_agg(action order by id) as actions from audit_log where organization_id = ? and action like 'team.%'`,
        [ownerSession.organization.id],
      );
    expect(actions.actions).toEqual(['team.invited', 'team.joined']);
  });
});

describe('roles are enforced by the server', () => {
  test('the customer’s link is shown to roles that may re-send it, never to a Viewer (issue 31 item 7)', async () => {
    const { owner } = await verifiedOwner();
    const viewer = await join(owner, 'viewer');
    const support = await join(owner, 'support');
    const created = data<{ paymentId: string }>(
      await owner.mutation('payments.create', {
        payment: {
          amount: { value: '5.00', currency: 'GBP' },
          toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
          flowType: 'API_ONLY',
        },
        idempotencyKey: 'viewer-link',
      }),
    );
    const linkOf = async (member: DashboardBrowser) =>
      data<{ customerLink: { url: string } | null }>(
        await member.query('payments.get', { paymentId: created.paymentId }),
      ).customerLink;
    expect((await linkOf(owner))?.url).toMatch(/\/mock-bank\//);
    expect((await linkOf(support.member))?.url).toMatch(/\/mock-bank\//);
    // A Viewer opening it could approve the payment as the customer would.
    expect(await linkOf(viewer.member)).toBeNull();
  });

  test('a Viewer calling a write procedure directly is refused 403; Support may cancel; Developer manages keys', async () => {
    const { owner } = await verifiedOwner();
    const viewer = await join(owner, 'viewer');
    const support = await join(owner, 'support');
    const developer = await join(owner, 'developer');

    // Reads are every role's.
    for (const { member } of [viewer, support, developer]) {
      expect((await member.query('overview')).statusCode).toBe(200);
      expect((await member.query('team.list')).statusCode).toBe(200);
    }
    const refused = failure(
      await viewer.member.mutation('apiKeys.create', { name: 'Mine', permissions: ['read'] }),
      403,
    );
    expect(refused.message).toMatch(/Your role \(Viewer\) cannot do this: it needs Owner, Developer/);
    expect(
      failure(await viewer.member.mutation('payments.cancel', { paymentId: 'pay_x' }), 403).message,
    ).toMatch(/cannot do this|needs an owner/);
    expect(
      failure(await viewer.member.mutation('settings.setReturnOrigins', { origins: [] }), 403).message,
    ).toMatch(/cannot do this|needs an owner/);
    expect(
      failure(await viewer.member.mutation('team.invite', { email: 'v@team.example', role: 'owner' }), 403)
        .message,
    ).toMatch(/cannot do this|needs an owner/);
    // Their own account is theirs.
    expect((await viewer.member.mutation('account.signOutEverywhere')).statusCode).toBe(200);

    // Support: past the role check (the payment does not exist: 404, not 403), but no keys.
    expect(
      failure(await support.member.mutation('payments.cancel', { paymentId: 'pay_missing' }), 404).message,
    ).toMatch(/not found|No such member/i);
    expect(
      failure(await support.member.mutation('apiKeys.create', { name: 'S', permissions: ['read'] }), 403)
        .message,
    ).toMatch(/cannot do this|needs an owner/);
    // Developer: keys yes, team no.
    expect(
      (await developer.member.mutation('apiKeys.create', { name: 'Dev', permissions: ['read'] })).statusCode,
    ).toBe(200);
    expect(
      failure(
        await developer.member.mutation('team.setRole', { userId: viewer.session.user.id, role: 'owner' }),
        403,
      ).message,
    ).toMatch(/cannot do this|needs an owner/);
  });
});

describe('owners and removal', () => {
  test('the last owner can neither leave nor be demoted; removing a member ends their sessions', async () => {
    const { owner, session } = await verifiedOwner();
    const developer = await join(owner, 'developer');
    expect(
      failure(await owner.mutation('team.setRole', { userId: session.user.id, role: 'viewer' }), 403).message,
    ).toMatch(/needs an owner/);
    expect(failure(await owner.mutation('team.remove', { userId: session.user.id }), 403).message).toMatch(
      /cannot do this|needs an owner/,
    );
    expect(failure(await owner.mutation('team.leave'), 403).message).toMatch(/cannot do this|needs an owner/);

    // With a second owner the first may step down.
    expect(
      data(await owner.mutation('team.setRole', { userId: developer.session.user.id, role: 'owner' })),
    ).toMatchObject({ role: 'owner' });
    expect(
      data(await owner.mutation('team.setRole', { userId: session.user.id, role: 'support' })),
    ).toMatchObject({
      role: 'support',
    });
    // Now a Support member: the team is no longer theirs to change.
    expect(
      failure(await owner.mutation('team.remove', { userId: developer.session.user.id }), 403).message,
    ).toMatch(/cannot do this|needs an owner/);

    // The new owner removes the old one: their session ends at once.
    expect((await owner.query('overview')).statusCode).toBe(200);
    data(await developer.member.mutation('team.remove', { userId: session.user.id }));
    expect((await owner.query('overview')).statusCode).toBe(401);
    // Another organization's member is not theirs to remove.
    const { session: stranger } = await verifiedOwner();
    expect(
      failure(await developer.member.mutation('team.remove', { userId: stranger.user.id }), 404).message,
    ).toMatch(/not found|No such member/i);
  });

  test('a role change racing a removal leaves one owner, never none', async () => {
    const { owner, session } = await verifiedOwner();
    const second = await join(owner, 'owner');
    const answers = await Promise.all([
      owner.mutation('team.setRole', { userId: session.user.id, role: 'viewer' }),
      second.member.mutation('team.remove', { userId: second.session.user.id }),
    ]);
    const [owners = {}] = await orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from dashboard_user where organization_id = ? and role = 'owner'`, [
        session.organization.id,
      ]);
    expect(owners.n).toBe(1);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 403]);
  });
});
