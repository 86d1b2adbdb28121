import type { DashboardSession } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { capturedLogger } from '../helpers/log-capture.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { appCode, type Challenge, type Setup, signUpWithTwoStep } from './two-step-steps.ts';

/** Issue 24, item 4: two-step sign-in with TOTP and recovery codes; an organization may require it. */
const log = capturedLogger();
const { app, clock, orm } = await createTestApp({ logger: log.logger });

let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.1.${++addresses}`);
const codeFor = (secret: string) => appCode(clock, secret);

/** A signed-up user with two-step on: the browser, its credentials, the setup key and recovery codes. */
async function withTwoStep() {
  const b = browser();
  return { b, ...(await signUpWithTwoStep(b, clock)) };
}

describe('setting up two-step verification', () => {
  test('a setup key and an otpauth URI; a code from the app turns it on and shows ten recovery codes once', async () => {
    const b = browser();
    const session = await b.signUp();
    expect(data(await b.query('account.twoStep'))).toEqual({
      enabled: false,
      requiredByOrganization: false,
      recoveryCodesLeft: 0,
    });
    const setup = data<Setup>(await b.mutation('account.beginTwoStep'));
    expect(setup.setupKey).toMatch(/^[A-Z2-7]{26,}$/);
    expect(setup.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(setup.otpauthUri).toContain(`secret=${setup.setupKey}`);
    expect(decodeURIComponent(setup.otpauthUri)).toContain(session.user.email);

    // A wrong code does not turn it on.
    const wrong = failure(await b.mutation('account.confirmTwoStep', { code: '000000' }), 400);
    expect(wrong.details).toEqual([
      { field: 'code', message: expect.stringMatching(/not the current code/) },
    ]);
    const enabled = data<{ enabled: true; recoveryCodes: string[] }>(
      await b.mutation('account.confirmTwoStep', { code: await codeFor(setup.setupKey) }),
    );
    expect(enabled.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.recoveryCodes).size).toBe(10);
    for (const code of enabled.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
    expect(data(await b.query('account.twoStep'))).toEqual({
      enabled: true,
      requiredByOrganization: false,
      recoveryCodesLeft: 10,
    });

    // Never shown again, and stored only as hashes.
    expect(failure(await b.mutation('account.beginTwoStep'), 403).message).toMatch(/already on/);
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute('select * from dashboard_user where id = ?', [session.user.id]);
    const stored = JSON.stringify(rows);
    expect(stored).toContain('totp_recovery_hashes');
    for (const code of enabled.recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replaceAll('-', ''));
    }
    expect(JSON.stringify(log.lines())).not.toContain(setup.setupKey);
    for (const code of enabled.recoveryCodes) expect(JSON.stringify(log.lines())).not.toContain(code);
  });
});

describe('signing in with two-step verification', () => {
  test('the password answers a challenge, not a session; the code completes it; a replayed code is refused', async () => {
    const { session, setup } = await withTwoStep();
    const next = browser();
    const answer = await next.mutation('account.signIn', {
      email: session.user.email,
      password: session.password,
    });
    const challenge = data<Challenge>(answer);
    expect(challenge).toEqual({
      twoStepRequired: true,
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // No session yet.
    expect(next.cookie).toBeUndefined();
    expect((await next.query('account.session')).statusCode).toBe(401);

    // The code used at setup (the same time step) is refused: a code is accepted once.
    const sameStep = failure(
      await next.mutation('account.signInCode', {
        challenge: challenge.challenge,
        code: await codeFor(setup.setupKey),
      }),
      400,
    );
    expect(sameStep.code).toBe('VALIDATION_FAILED');

    clock.advance(30_000);
    const code = await codeFor(setup.setupKey);
    const signedIn = data<DashboardSession>(
      await next.mutation('account.signInCode', { challenge: challenge.challenge, code }),
    );
    expect(signedIn.user.id).toBe(session.user.id);
    expect((await next.query('account.session')).statusCode).toBe(200);

    // Replayed within its window, with a fresh challenge: refused.
    const again = browser();
    const second = data<Challenge>(
      await again.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    const replay = failure(
      await again.mutation('account.signInCode', { challenge: second.challenge, code }),
      400,
    );
    expect(replay.details?.[0]?.field).toBe('code');
    // The spent challenge is refused too.
    expect(
      failure(await again.mutation('account.signInCode', { challenge: challenge.challenge, code }), 400).code,
    ).toBe('LINK_INVALID');
  });

  test('a recovery code signs in once; a tampered or expired challenge is refused', async () => {
    const { session, recoveryCodes } = await withTwoStep();
    const next = browser();
    const { challenge } = data<Challenge>(
      await next.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    const recovery = recoveryCodes[0] as string;
    expect(
      failure(
        await next.mutation('account.signInCode', {
          challenge: `${challenge.slice(0, -2)}AA`,
          code: recovery,
        }),
        400,
      ).code,
    ).toBe('LINK_INVALID');
    // Typed in capitals with spaces: still the code.
    data<DashboardSession>(
      await next.mutation('account.signInCode', {
        challenge,
        code: recovery.toUpperCase().replaceAll('-', ' '),
      }),
    );
    expect(data(await next.query('account.twoStep'))).toMatchObject({ recoveryCodesLeft: 9 });

    const later = browser();
    const second = data<Challenge>(
      await later.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    expect(
      failure(
        await later.mutation('account.signInCode', { challenge: second.challenge, code: recovery }),
        400,
      ).code,
    ).toBe('VALIDATION_FAILED');
    clock.advance(5 * 60_000 + 1);
    expect(
      failure(
        await later.mutation('account.signInCode', { challenge: second.challenge, code: recoveryCodes[1] }),
        410,
      ).code,
    ).toBe('LINK_EXPIRED');
  });
});

describe('an organization that requires two-step verification', () => {
  test('only a member who uses it can require it; then a member without it reaches only their account', async () => {
    const plain = browser();
    const owner = await plain.signUp();
    expect(failure(await plain.mutation('account.requireTwoStep', { required: true }), 403).message).toMatch(
      /your own account first/,
    );

    const { b, session: requiring } = await withTwoStep();
    const status = data(await b.mutation('account.requireTwoStep', { required: true }));
    expect(status).toEqual({ enabled: true, requiredByOrganization: true, recoveryCodesLeft: 10 });
    expect((await b.query('overview')).statusCode).toBe(200);

    // A member of that organization without two-step (moved there: invitations are item 5).
    await orm.em
      .fork()
      .getConnection()
      .execute('update dashboard_user set organization_id = ? where id = ?', [
        requiring.organization.id,
        owner.user.id,
      ]);
    const refused = failure(await plain.query('overview'), 403);
    expect(refused.message).toMatch(/requires two-step verification/);
    expect((await plain.query('account.twoStep')).statusCode).toBe(200);
    const setup = data<Setup>(await plain.mutation('account.beginTwoStep'));
    data(await plain.mutation('account.confirmTwoStep', { code: await codeFor(setup.setupKey) }));
    expect((await plain.query('overview')).statusCode).toBe(200);
  });
});
