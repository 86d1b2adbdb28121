import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, PHONE } from './support/browser.ts';
import { expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';
import { linkIn, mailTo } from './support/mail-inbox.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** A signed-out page asks `session()` (401), and a refused call answers 4xx: the browser logs both. */
const EXPECTED = /status of 40[0134]/;
const ROLES = ['Developer', 'Support', 'Viewer', 'Owner'] as const;

/** A tRPC mutation from inside the signed-in page, as a script in it would call the server. */
const callFromPage = (page: Page, path: string, input: unknown) =>
  page.evaluate(
    async ({ path, input }) => {
      const session = await fetch('/trpc/dashboard.account.session').then((response) => response.json());
      const response = await fetch(`/trpc/dashboard.${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.result.data.csrfToken },
        body: JSON.stringify(input),
      });
      return { status: response.status, body: await response.text() };
    },
    { path, input },
  );

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('team and roles (%s)', (label, viewport) => {
  it('an owner invites one member of each role; each accepts; a Viewer is refused by the server', async () => {
    const stamp = `${label}-${Date.now()}`;
    const ownerEmail = `team-owner-${stamp}@acme.example`;
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: EXPECTED,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Team ${label}`,
      email: ownerEmail,
      password: 'lichen parcel harbor tulip 52',
    });
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor({ timeout: 30_000 });

    // Invitations wait for the owner's verified address, and the page says so.
    await openSection(page, 'Team');
    await page.getByLabel('Email').fill(`early-${stamp}@acme.example`);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page
      .getByText(/Confirm your email address first: invitations wait for it/)
      .first()
      .waitFor();
    await page.goto(linkIn(await mailTo(ownerEmail, 'Confirm your email address')));
    await page.getByRole('button', { name: 'Confirm email address' }).click();
    await page.getByText(`${ownerEmail} is confirmed.`).waitFor();

    await page.goto(`${inject('baseUrl')}/dashboard/team`);
    await page.getByRole('heading', { name: 'Invite' }).waitFor();
    for (const role of ROLES) {
      await page.getByLabel('Email').fill(`${role.toLowerCase()}-${stamp}@acme.example`);
      await page.getByLabel('Role', { exact: true }).selectOption(role.toLowerCase());
      await page.getByRole('button', { name: 'Invite' }).click();
      await page
        .getByText(`Invitation sent to ${role.toLowerCase()}-${stamp}@acme.example (${role})`)
        .waitFor();
    }
    // An invitation sent by mistake is withdrawn; its link then says so (issue 31 item 6).
    const mistaken = `mistake-${stamp}@acme.example`;
    await page.getByLabel('Email').fill(mistaken);
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText(`Invitation sent to ${mistaken}`).waitFor();
    const waiting = page.getByRole('list', { name: 'Invitations waiting' });
    await waiting.getByText(mistaken).waitFor();
    await page.getByRole('button', { name: `Withdraw the invitation to ${mistaken}` }).click();
    await waiting.getByText(mistaken).waitFor({ state: 'detached' });
    const withdrawnLink = await openCustomerPage(browser, { viewport, expectedErrors: /status of 410/ });
    await withdrawnLink.page.goto(linkIn(await mailTo(mistaken, 'You are invited to a payments dashboard')));
    await withdrawnLink.page
      .getByText('This invitation was withdrawn: ask the organization for a new one.')
      .waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    const members: Record<string, Page> = {};
    for (const role of ROLES) {
      const email = `${role.toLowerCase()}-${stamp}@acme.example`;
      const mail = await mailTo(email, 'You are invited to a payments dashboard');
      expect(mail.text).toContain(`as ${role}`);
      const invitee = await openCustomerPage(browser, { viewport, expectedErrors: EXPECTED });
      await invitee.page.goto(linkIn(mail));
      await invitee.page.getByText(`invited ${email} to join Team ${label} as ${role}.`).waitFor();
      if (role === 'Developer') await expectAccessible(invitee.page);
      await invitee.page.getByLabel('Choose a password').fill(`${role} quartz lantern meadow 17`);
      await invitee.page.getByRole('button', { name: 'Accept invitation' }).click();
      await invitee.page.getByRole('navigation', { name: 'Dashboard' }).waitFor();
      await openSection(invitee.page, 'Team');
      await invitee.page.getByText(`Your role: ${role}.`).waitFor();
      members[role] = invitee.page;
    }
    // Only an owner sees the invite form; a Viewer's own page is read-only and axe-clean.
    const viewer = members.Viewer as Page;
    expect(await viewer.getByRole('heading', { name: 'Invite' }).count()).toBe(0);
    await expectAccessible(viewer);

    // The Viewer calling write procedures directly: refused by the server, nothing made.
    const key = await callFromPage(viewer, 'apiKeys.create', { name: 'Sneaky', permissions: ['read'] });
    expect(key.status).toBe(403);
    expect(key.body).toContain('Your role (Viewer) cannot do this');
    const invite = await callFromPage(viewer, 'team.invite', {
      email: `x-${stamp}@acme.example`,
      role: 'owner',
    });
    expect(invite.status).toBe(403);
    // The Developer may make a key.
    const made = await callFromPage(members.Developer as Page, 'apiKeys.create', {
      name: 'Dev',
      permissions: ['read'],
    });
    expect(made.status).toBe(200);

    // The owner sees everyone, and removes the Viewer: their session ends.
    await page.reload();
    await page.getByRole('button', { name: `Remove viewer-${stamp}@acme.example` }).click();
    await page
      .getByRole('button', { name: `Remove viewer-${stamp}@acme.example` })
      .waitFor({ state: 'detached' });
    expect(await viewer.evaluate(() => fetch('/trpc/dashboard.account.session').then((r) => r.status))).toBe(
      401,
    );

    for (const member of Object.values(members)) await member.close();
    assertNoConsoleErrors();
    await page.close();
  });
});
