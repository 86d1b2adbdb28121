import type { DashboardSession } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  appCode,
  type Challenge,
  memberWithTwoStep,
  type Setup,
  type TwoStepStatus,
} from './two-step-steps.ts';

/**
 * Review 5: "turn two-step off" and "new recovery codes" attacked as an attacker would
 * (docs/decisions/045-two-step-sign-in.md). Each test states what must hold.
 */
const { app, clock, orm } = await createTestApp();

let addresses = 0;
const browser = () => new DashboardBrowser(app, `198.18.5.${++addresses}`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const withTwoStep = () => memberWithTwoStep(browser(), clock);

/** A second session of the same member (signed in with a recovery code): a stolen cookie. */
async function secondSession(email: string, password: string, recoveryCode: string) {
  const other = browser();
  const { challenge } = data<Challenge>(await other.mutation('account.signIn', { email, password }));
  const session = data<DashboardSession>(
    await other.mutation('account.signInCode', { challenge, code: recoveryCode }),
  );
  other.csrfToken = session.csrfToken;
  return other;
}

/** Whether a backend waits on a row lock in a statement that contains `statement`. */
async function waitingOnLock(statement: string) {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ waiting: number }[]>(
      `select count(*)::int as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and query like ?`,
      [`%${statement}%`],
    );
  return (rows[0]?.waiting ?? 0) > 0;
}

describe('races', () => {
  test('an owner requiring two-step at the same moment a member turns it off: the turn-off is refused, not raced past', async () => {
    const { b, session, recoveryCodes } = await withTwoStep();
    // The owner's "Require two-step" is in flight: its UPDATE has run, its transaction not committed.
    const updated = Promise.withResolvers<void>();
    const commit = Promise.withResolvers<void>();
    const owner = orm.em.fork().transactional(async (em) => {
      await em.execute('update organization set require_two_step = true where id = ?', [
        session.organization.id,
      ]);
      updated.resolve();
      await commit.promise;
    });
    await updated.promise;
    let answered = false;
    const turnOff = b
      .mutation('account.turnOffTwoStep', { password: session.password, code: recoveryCodes[0] })
      .finally(() => {
        answered = true;
      });
    try {
      // Either the turn-off answers while the rule is uncommitted (it read the old rule: raced
      // past), or its UPDATE waits for the rule's row. Both are seen without guessing a delay.
      for (let tries = 0; !answered && tries < 600; tries++) {
        if (await waitingOnLock('update dashboard_user u set totp_secret = null')) break;
        await pause(50);
      }
    } finally {
      commit.resolve();
      await owner;
    }
    const answer = await turnOff;
    expect(failure(answer, 403).code).toBe('TWO_STEP_REQUIRED_BY_ORGANIZATION');
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toMatchObject({
      enabled: true,
      requiredByOrganization: true,
    });
  });
  test('an owner requiring two-step while their own turn-off is in flight: the rule is refused, not set for an owner without it', async () => {
    const { b, session } = await withTwoStep();
    // The owner's turn-off (another tab) has cleared the columns, its transaction not committed.
    const updated = Promise.withResolvers<void>();
    const commit = Promise.withResolvers<void>();
    const turnOff = orm.em.fork().transactional(async (em) => {
      await em.execute(
        `update dashboard_user set totp_secret = null, totp_pending_secret = null, totp_enabled_at = null,
            totp_last_step = null, totp_recovery_hashes = null where id = ?`,
        [session.user.id],
      );
      updated.resolve();
      await commit.promise;
    });
    await updated.promise;
    let answered = false;
    const require = b.mutation('account.requireTwoStep', { required: true }).finally(() => {
      answered = true;
    });
    try {
      for (let tries = 0; !answered && tries < 600; tries++) {
        if (await waitingOnLock('as "on" from dashboard_user')) break;
        await pause(50);
      }
    } finally {
      commit.resolve();
      await turnOff;
    }
    expect(failure(await require, 403).message).toMatch(
      /Turn on two-step verification for your own account first/,
    );
    expect(data<TwoStepStatus>(await b.query('account.twoStep'))).toMatchObject({
      enabled: false,
      requiredByOrganization: false,
    });
  });
});

describe('replay and CSRF', () => {
  test("a code used at sign-in is refused here within its window, and an earlier step's unused code too", async () => {
    const { session, secret } = await withTwoStep();
    clock.advance(60_000);
    const earlier = await appCode(clock, secret);
    clock.advance(30_000);
    const code = await appCode(clock, secret);
    const signedIn = browser();
    const { challenge } = data<Challenge>(
      await signedIn.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    signedIn.csrfToken = data<DashboardSession>(
      await signedIn.mutation('account.signInCode', { challenge, code }),
    ).csrfToken;
    for (const replayed of [code, earlier]) {
      for (const path of ['account.turnOffTwoStep', 'account.regenerateRecoveryCodes']) {
        expect(
          failure(await signedIn.mutation(path, { password: session.password, code: replayed }), 400).details,
        ).toEqual([{ field: 'code', message: expect.stringMatching(/already used/) }]);
      }
    }
    expect(data<TwoStepStatus>(await signedIn.query('account.twoStep'))).toMatchObject({
      enabled: true,
      recoveryCodesLeft: 10,
    });
  });

  test("without the session's own CSRF token both are refused before the password or the code is looked at", async () => {
    const { b, session, recoveryCodes } = await withTwoStep();
    const other = await secondSession(session.user.email, session.password, recoveryCodes[1] as string);
    for (const csrf of [null, 'f'.repeat(64), String(other.csrfToken)]) {
      for (const path of ['account.turnOffTwoStep', 'account.regenerateRecoveryCodes']) {
        const refused = failure(
          await b.mutation(path, { password: session.password, code: recoveryCodes[0] }, { csrf }),
          403,
        );
        expect(refused.message).toMatch(/CSRF/);
      }
    }
    // Nothing spent: the recovery code still proves a change.
    expect(data<TwoStepStatus>(await b.query('account.twoStep')).recoveryCodesLeft).toBe(9);
    data(
      await b.mutation('account.regenerateRecoveryCodes', {
        password: session.password,
        code: recoveryCodes[0],
      }),
    );
  });
});

describe('a stolen session', () => {
  // Finding (review 5): turning off ends the member's other sessions (as a password change does),
  // so a session stolen earlier cannot set two-step up again with the thief's app.
  test('once the member turned two-step off, a session they did not end cannot turn it back on with the thief’s app', async () => {
    const { b, session, recoveryCodes } = await withTwoStep();
    const thief = await secondSession(session.user.email, session.password, recoveryCodes[1] as string);
    data(await b.mutation('account.turnOffTwoStep', { password: session.password, code: recoveryCodes[0] }));

    // The thief has the cookie, not the password. "Set up" and "Confirm" ask for nothing else
    // today: the thief's app becomes the member's second factor, the thief holds the recovery
    // codes, and the member's next sign-in asks for a code only the thief has (no mail says so).
    const begin = await thief.mutation('account.beginTwoStep');
    if (begin.statusCode === 200) {
      const confirm = await thief.mutation('account.confirmTwoStep', {
        code: await appCode(clock, data<Setup>(begin).setupKey),
      });
      expect([401, 403], 'a session without the password turned two-step on with its own app').toContain(
        confirm.statusCode,
      );
    } else {
      expect([401, 403]).toContain(begin.statusCode);
    }
    // The member still signs in with the password alone.
    expect((await browser().signIn(session.user.email, session.password)).user.id).toBe(session.user.id);
  });

  test('another member’s user id in the input is ignored: only the caller’s own two-step changes', async () => {
    const victim = await withTwoStep();
    const attacker = await withTwoStep();
    clock.advance(30_000);
    const answer = await attacker.b.mutation('account.turnOffTwoStep', {
      password: attacker.session.password,
      code: await appCode(clock, attacker.secret),
      userId: victim.session.user.id,
      organizationId: victim.session.organization.id,
    });
    expect(data(answer)).toEqual({ enabled: false });
    expect(data<TwoStepStatus>(await victim.b.query('account.twoStep')).enabled).toBe(true);
    expect(data<TwoStepStatus>(await attacker.b.query('account.twoStep')).enabled).toBe(false);
  });

  test('a thief spending the throttle from its own address does not lock the member out at theirs', async () => {
    const { b, session, secret, recoveryCodes } = await withTwoStep();
    const thief = await secondSession(session.user.email, session.password, recoveryCodes[1] as string);
    // Its sign-in counted one attempt at its address; its guesses use up the rest.
    let answer = await thief.mutation('account.turnOffTwoStep', { password: 'guess', code: '123456' });
    for (let attempt = 0; answer.statusCode === 400 && attempt < 10; attempt++) {
      answer = await thief.mutation('account.turnOffTwoStep', {
        password: `guess ${attempt}`,
        code: '123456',
      });
    }
    expect(failure(answer, 429).code).toBe('RATE_LIMITED');
    // The member, from their own address: a sign-in and the change itself still answer.
    clock.advance(30_000);
    data(
      await b.mutation('account.regenerateRecoveryCodes', {
        password: session.password,
        code: await appCode(clock, secret),
      }),
    );
    const { challenge } = data<Challenge>(
      await b.mutation('account.signIn', { email: session.user.email, password: session.password }),
    );
    expect(challenge).toBeTypeOf('string');
  });

  test('wrong codes are counted per account too: 30 from many addresses, then even the right code waits', async () => {
    const { session, secret } = await withTwoStep();
    const challengeAt = async (b: DashboardBrowser) =>
      data<Challenge>(
        await b.mutation('account.signIn', { email: session.user.email, password: session.password }),
      ).challenge;
    // Three addresses, ten wrong codes each: each address's own budget, the account's 30.
    for (let address = 0; address < 3; address++) {
      const attacker = browser();
      const challenge = await challengeAt(attacker);
      for (let guess = 0; guess < 10; guess++) {
        failure(await attacker.mutation('account.signInCode', { challenge, code: '000000' }), 400);
      }
    }
    // A fourth address, with the password and the right code: refused until the window ends.
    const fourth = browser();
    const challenge = await challengeAt(fourth);
    clock.advance(30_000);
    const answer = await fourth.mutation('account.signInCode', {
      challenge,
      code: await appCode(clock, secret),
    });
    expect(failure(answer, 429).code).toBe('RATE_LIMITED');
  });
});
