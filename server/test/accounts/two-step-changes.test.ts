import type { DashboardSession } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import type { MailMessage, MailOutbox, MailPurpose } from '../../src/mail/mail-message.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { capturedLogger } from '../helpers/log-capture.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { appCode, type Challenge, memberWithTwoStep, type TwoStepStatus } from './two-step-steps.ts';

/**
 * Two-step verification, once on: new recovery codes and turning it off, each after the
 * current password and a current code (docs/decisions/045-two-step-sign-in.md).
 */
const sent: { purpose: MailPurpose; message: MailMessage }[] = [];
/** The mail queue refuses while true (its database table unreachable, say). */
let mailDown = false;
const outbox: MailOutbox = {
  queue: async (purpose, message) => {
    if (mailDown) throw new Error('mail queue unavailable');
    sent.push({ purpose, message });
  },
};
const log = capturedLogger();
const { app, clock, orm } = await createTestApp({ mail: outbox, logger: log.logger });

let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.2.${++addresses}`);
const codeFor = (secret: string) => appCode(clock, secret);
/** The next time step's code: the one of the current step was spent by the last success. */
const nextCode = (secret: string) => {
  clock.advance(30_000);
  return codeFor(secret);
};

const withTwoStep = () => memberWithTwoStep(browser(), clock);

/** A sign-in from a fresh browser with this code after the password: the answer. */
async function signInWith(email: string, password: string, code: string) {
  const next = browser();
  const { challenge } = data<Challenge>(await next.mutation('account.signIn', { email, password }));
  return next.mutation('account.signInCode', { challenge, code });
}

const auditRows = (organizationId: string) =>
  orm.em
    .fork()
    .getConnection()
    .execute<{ actor: string; action: string; target: string | null; details: unknown }[]>(
      `select actor, action, target, details from audit_log where organization_id = ? and action = 'settings.changed' order by id`,
      [organizationId],
    );

/** Neither the log lines, the audit rows nor the mail carry any of these. */
async function expectNowhere(organizationId: string, secrets: string[]) {
  const places = [
    JSON.stringify(log.lines()),
    JSON.stringify(await auditRows(organizationId)),
    JSON.stringify(sent.map((mail) => mail.message)),
  ];
  for (const secret of secrets) {
    for (const place of places) {
      expect(place).not.toContain(secret);
      if (secret.includes('-')) expect(place).not.toContain(secret.replaceAll('-', ''));
    }
  }
}

describe('new recovery codes', () => {
  test('the password and a code make ten new codes; every old one stops working at once, the new ones sign in', async () => {
    const { b, session, secret, recoveryCodes: old } = await withTwoStep();
    const code = await nextCode(secret);
    const made = data<{ recoveryCodes: string[] }>(
      await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code }),
    );
    expect(made.recoveryCodes).toHaveLength(10);
    expect(new Set(made.recoveryCodes).size).toBe(10);
    for (const fresh of made.recoveryCodes) {
      expect(fresh).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
      expect(old).not.toContain(fresh);
    }
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toEqual({
      enabled: true,
      requiredByOrganization: false,
      recoveryCodesLeft: 10,
    });

    // An old code is dead at sign-in; a new one signs in (once).
    const oldAnswer = failure(await signInWith(session.user.email, session.password, old[3] as string), 400);
    expect(oldAnswer.details).toEqual([
      { field: 'code', message: expect.stringMatching(/not the current code/) },
    ]);
    const fresh = made.recoveryCodes[0] as string;
    expect(
      data<DashboardSession>(await signInWith(session.user.email, session.password, fresh)).user.id,
    ).toBe(session.user.id);
    expect(failure(await signInWith(session.user.email, session.password, fresh), 400).code).toBe(
      'VALIDATION_FAILED',
    );

    // The code used here was spent: not again within its window, not for turning off either.
    expect(
      failure(await b.mutation('account.turnOffTwoStep', { password: session.password, code }), 400).details,
    ).toEqual([{ field: 'code', message: expect.stringMatching(/already used/) }]);
    expect(data<TwoStepStatus>(await b.query('account.twoStep')).enabled).toBe(true);

    // Audited without any code; the address is told; nothing secret in the logs.
    const audit = await auditRows(session.organization.id);
    expect(audit.at(-1)).toEqual({
      actor: session.user.email,
      action: 'settings.changed',
      target: 'twoStepRecoveryCodes',
      details: { replaced: true },
    });
    const mail = sent.filter((m) => m.message.to === session.user.email && m.purpose === 'two-step-changed');
    // The set-up's notice, then this one.
    expect(mail.map((m) => m.message.subject)).toEqual([
      'Two-step verification was turned on',
      'New recovery codes were made for your account',
    ]);
    await expectNowhere(session.organization.id, [...old, ...made.recoveryCodes, secret, session.password]);
  });

  test('a notice that cannot be queued does not cost the member the new codes: shown, and they sign in', async () => {
    const { b, session, secret } = await withTwoStep();
    mailDown = true;
    let made: { recoveryCodes: string[] };
    try {
      made = data<{ recoveryCodes: string[] }>(
        await b.mutation('account.regenerateRecoveryCodes', {
          password: session.password,
          code: await nextCode(secret),
        }),
      );
    } finally {
      mailDown = false;
    }
    expect(made.recoveryCodes).toHaveLength(10);
    const fresh = made.recoveryCodes[0] as string;
    expect(
      data<DashboardSession>(await signInWith(session.user.email, session.password, fresh)).user.id,
    ).toBe(session.user.id);
    expect(log.lines().some((line) => line.msg === 'two-step notice not queued' && line.level === 50)).toBe(
      true,
    );
  });

  test('a recovery code of the old set also proves it; two requests racing with one code make one set', async () => {
    const { b, session, recoveryCodes } = await withTwoStep();
    const [first, second] = await Promise.all([
      b.mutation('account.regenerateRecoveryCodes', { password: session.password, code: recoveryCodes[0] }),
      b.mutation('account.regenerateRecoveryCodes', { password: session.password, code: recoveryCodes[0] }),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 400]);
    const winner = first.statusCode === 200 ? first : second;
    const codes = data<{ recoveryCodes: string[] }>(winner).recoveryCodes;
    expect(data<TwoStepStatus>(await b.query('account.twoStep')).recoveryCodesLeft).toBe(10);
    // The set that was shown is the set that works.
    data<DashboardSession>(await signInWith(session.user.email, session.password, codes[9] as string));
    expect(data<TwoStepStatus>(await b.query('account.twoStep')).recoveryCodesLeft).toBe(9);
  });

  test('a wrong password or a wrong code changes nothing and spends nothing', async () => {
    const { b, session, secret, recoveryCodes } = await withTwoStep();
    const code = await nextCode(secret);
    const wrongPassword = failure(
      await b.mutation('account.regenerateRecoveryCodes', { password: 'not the password at all', code }),
      400,
    );
    expect(wrongPassword.code).toBe('VALIDATION_FAILED');
    expect(wrongPassword.details).toEqual([{ field: 'password', message: 'is not your current password' }]);
    const wrongCode = failure(
      await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code: '000000' }),
      400,
    );
    expect(wrongCode.details).toEqual([
      { field: 'code', message: expect.stringMatching(/not the current code/) },
    ]);
    const unknownRecovery = failure(
      await b.mutation('account.regenerateRecoveryCodes', {
        password: session.password,
        code: 'aaaa-bbbb-cccc-dddd',
      }),
      400,
    );
    expect(unknownRecovery.details?.[0]?.field).toBe('code');
    // Not a code at all: the schema's answer, same shape.
    expect(
      failure(
        await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code: '1' }),
        400,
      ).details?.[0]?.field,
    ).toBe('code');
    expect(
      sent.some(
        (m) =>
          m.message.to === session.user.email &&
          m.message.subject === 'New recovery codes were made for your account',
      ),
    ).toBe(false);
    expect(await auditRows(session.organization.id)).toHaveLength(1); // the setup only

    // The old codes still work, and the TOTP code was not spent by the wrong password.
    data(await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code }));
    expect(
      failure(await signInWith(session.user.email, session.password, recoveryCodes[1] as string), 400).code,
    ).toBe('VALIDATION_FAILED');
  });

  test('throttled like every re-authentication: after ten tries, the right password and code are refused too', async () => {
    const { b, session, secret } = await withTwoStep();
    for (let attempt = 0; attempt < 10; attempt++) {
      failure(
        await b.mutation('account.regenerateRecoveryCodes', {
          password: `wrong password ${attempt}`,
          code: '123456',
        }),
        400,
      );
    }
    const code = await nextCode(secret);
    const refused = failure(
      await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code }),
      429,
    );
    expect(refused.code).toBe('RATE_LIMITED');
    expect(
      failure(await b.mutation('account.turnOffTwoStep', { password: session.password, code }), 429).code,
    ).toBe('RATE_LIMITED');
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
  });
});

describe('turning two-step verification off', () => {
  test('refused with its own code while the organization requires it; then, with the password and a code, sign-in asks only the password', async () => {
    const { b, session, secret, recoveryCodes } = await withTwoStep();
    const other = browser();
    // Another browser signed in with a recovery code: the turn-off signs it out.
    const { challenge } = data<Challenge>(
      await other.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    const otherSession = data<DashboardSession>(
      await other.mutation('account.signInCode', { challenge, code: recoveryCodes[5] }),
    );
    other.csrfToken = otherSession.csrfToken;

    data(await b.mutation('account.requireTwoStep', { required: true }));
    const required = failure(
      await b.mutation('account.turnOffTwoStep', { password: session.password, code: recoveryCodes[0] }),
      403,
    );
    expect(required.code).toBe('TWO_STEP_REQUIRED_BY_ORGANIZATION');
    expect(required.message).toMatch(/requires two-step verification for every member/);
    // Nothing changed, nothing spent.
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toEqual({
      enabled: true,
      requiredByOrganization: true,
      recoveryCodesLeft: 9,
    });

    data(await b.mutation('account.requireTwoStep', { required: false }));
    expect(
      failure(
        await b.mutation('account.turnOffTwoStep', {
          password: 'not the password at all',
          code: recoveryCodes[0],
        }),
        400,
      ).details,
    ).toEqual([{ field: 'password', message: 'is not your current password' }]);
    expect(
      failure(await b.mutation('account.turnOffTwoStep', { password: session.password, code: '000000' }), 400)
        .details?.[0]?.field,
    ).toBe('code');
    // The setup's code, replayed in its window: refused.
    expect(
      failure(
        await b.mutation('account.turnOffTwoStep', {
          password: session.password,
          code: await codeFor(secret),
        }),
        400,
      ).details?.[0]?.field,
    ).toBe('code');
    expect(data<TwoStepStatus>(await b.query('account.twoStep')).enabled).toBe(true);

    expect(
      data(
        await b.mutation('account.turnOffTwoStep', { password: session.password, code: recoveryCodes[0] }),
      ),
    ).toEqual({ enabled: false });
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toEqual({
      enabled: false,
      requiredByOrganization: false,
      recoveryCodesLeft: 0,
    });
    // Everything of the old setup is forgotten.
    const [row] = await orm.em
      .fork()
      .getConnection()
      .execute(
        'select totp_secret, totp_pending_secret, totp_enabled_at, totp_last_step, totp_recovery_hashes from dashboard_user where id = ?',
        [session.user.id],
      );
    expect(Object.values(row ?? { missing: 'row' }).every((value) => value === null)).toBe(true);

    // Sign-in asks only for the password now.
    const plain = browser();
    expect((await plain.signIn(session.user.email, session.password)).user.id).toBe(session.user.id);
    // Other sessions end, as after a password change (review 5, decision 045); this one stays.
    expect((await other.query('overview')).statusCode).toBe(401);
    expect((await b.query('overview')).statusCode).toBe(200);

    // Audited, mailed, nothing secret anywhere.
    expect((await auditRows(session.organization.id)).at(-1)).toMatchObject({
      action: 'settings.changed',
      target: 'twoStep',
      details: { enabled: false },
    });
    const mail = sent.filter((m) => m.message.to === session.user.email && m.purpose === 'two-step-changed');
    expect(mail.map((m) => m.message.subject)).toEqual([
      'Two-step verification was turned on',
      'Two-step verification was turned off',
    ]);
    expect(mail[0]?.message.text).toMatch(/someone else is signed in to your account/);
    await expectNowhere(session.organization.id, [...recoveryCodes, secret, session.password]);

    // Turning it off again: it is not on.
    expect(
      failure(await b.mutation('account.turnOffTwoStep', { password: session.password, code: '123456' }), 403)
        .message,
    ).toMatch(/not on/);
    expect(
      failure(
        await b.mutation('account.regenerateRecoveryCodes', { password: session.password, code: '123456' }),
        403,
      ).message,
    ).toMatch(/not on/);

    // Set up again from scratch: a new secret; the old one's codes open nothing.
    const again = data<{ setupKey: string }>(await b.mutation('account.beginTwoStep'));
    expect(again.setupKey).not.toBe(secret);
    expect(
      failure(await b.mutation('account.confirmTwoStep', { code: await nextCode(secret) }), 400).details?.[0]
        ?.field,
    ).toBe('code');
    data(await b.mutation('account.confirmTwoStep', { code: await codeFor(again.setupKey) }));
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
  });
});
