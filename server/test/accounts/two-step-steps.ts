import { generate } from 'otplib';
import { type DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import type { TestClock } from '../helpers/test-clock.ts';

/** What "Set up" answers, and the password step's answer when two-step is on. */
export interface Setup {
  setupKey: string;
  otpauthUri: string;
}
export interface Challenge {
  twoStepRequired: true;
  challenge: string;
}

/** `account.twoStep`'s answer. */
export interface TwoStepStatus {
  enabled: boolean;
  requiredByOrganization: boolean;
  recoveryCodesLeft: number;
}

/** The authenticator app: the code for a setup key at the test clock's time. */
export const appCode = (clock: TestClock, secret: string) =>
  generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });

/** Signs a browser up and turns two-step on: its session, setup and recovery codes. */
export async function signUpWithTwoStep(b: DashboardBrowser, clock: TestClock) {
  const session = await b.signUp();
  const setup = data<Setup>(await b.mutation('account.beginTwoStep'));
  const enabled = data<{ enabled: true; recoveryCodes: string[] }>(
    await b.mutation('account.confirmTwoStep', { code: await appCode(clock, setup.setupKey) }),
  );
  return { session, setup, recoveryCodes: enabled.recoveryCodes };
}

/** A member with two-step on, in browser `b`: the browser, session, setup key and recovery codes. */
export async function memberWithTwoStep(b: DashboardBrowser, clock: TestClock) {
  const { session, setup, recoveryCodes } = await signUpWithTwoStep(b, clock);
  return { b, session, secret: setup.setupKey, recoveryCodes };
}
