import escapeHtml from 'escape-html';
import type { MailMessage } from './mail-message.ts';

/**
 * Account mails in plain text and HTML. Whatever a person typed (an organization's name, an
 * address) is escaped in the HTML and kept out of the subject, where a line break would add a
 * header; links are built by us from our own origin and a random token.
 */
interface Layout {
  to: string;
  subject: string;
  /** Paragraphs of plain text (escaped for the HTML). */
  paragraphs: string[];
  action?: { label: string; url: string };
  footer: string;
}

const render = ({ to, subject, paragraphs, action, footer }: Layout): MailMessage => {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '--', footer].join(
    '\n\n',
  );
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2937; max-width: 36rem">',
    ...paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(action
      ? [
          `<p><a href="${escapeHtml(action.url)}" style="display: inline-block; padding: 0.6rem 1rem; background: #1d4ed8; color: #ffffff; border-radius: 0.375rem; text-decoration: none">${escapeHtml(action.label)}</a></p>`,
          `<p style="font-size: 0.875rem">Or open this link: ${escapeHtml(action.url)}</p>`,
        ]
      : []),
    `<hr><p style="font-size: 0.875rem; color: #4b5563">${escapeHtml(footer)}</p>`,
    '</body></html>',
  ].join('\n');
  return { to, subject, text, html };
};

const FOOTER = 'Payment Initiation Service · you get this mail because of your dashboard account.';

/**
 * An organization's name as the mail shows it: it is whatever a stranger typed at sign-up (a
 * phishing line, a link), so it stands quoted, as a name, inside the service's own sentence;
 * on one line, at most 60 characters, and with anything that reads as a web address defanged
 * (`phish[.]example`, `hxxps://`) so no mail program makes it a link (issue 31 item 5).
 */
export function quotedName(name: string): string {
  const line = name.replace(/\s+/g, ' ').trim();
  const short = line.length > 60 ? `${line.slice(0, 59)}…` : line;
  const defanged = short
    .replace(
      /\b(h)(ttps?)(:\/\/)/gi,
      (_all, h: string, rest: string) => `${h}${rest.replace(/t/gi, 'x')}[://]`,
    )
    .replace(/([\p{L}\p{N}-])\.(?=[\p{L}\p{N}-])/gu, '$1[.]');
  return `“${defanged || 'your organization'}”`;
}

export const verifyEmailMail = (input: { to: string; organizationName: string; url: string }) =>
  render({
    to: input.to,
    subject: 'Confirm your email address',
    paragraphs: [
      `Confirm this address for your dashboard account in the organization named ${quotedName(input.organizationName)}.`,
      'Test mode works already; live mode and team invitations wait for this confirmation. The link works once, for 24 hours.',
    ],
    action: { label: 'Confirm email address', url: input.url },
    footer: `${FOOTER} If you did not sign up, ignore it.`,
  });

export const passwordResetMail = (input: { to: string; url: string }) =>
  render({
    to: input.to,
    subject: 'Reset your password',
    paragraphs: [
      'Someone (we hope you) asked to reset the password of your dashboard account.',
      'The link works once, for 30 minutes. Setting a new password signs out every session.',
    ],
    action: { label: 'Set a new password', url: input.url },
    footer: `${FOOTER} If you did not ask, ignore this mail: your password stays as it is.`,
  });

export const passwordChangedMail = (input: { to: string; organizationName: string }) =>
  render({
    to: input.to,
    subject: 'Your password was changed',
    paragraphs: [
      `The password of your dashboard account in the organization named ${quotedName(input.organizationName)} was changed, and every session was signed out.`,
      'If this was not you, reset your password now with "Forgot password?" on the sign-in page.',
    ],
    footer: FOOTER,
  });

/** Two-step verification turned off, or its recovery codes replaced: never a code in the mail. */
const TWO_STEP_CHANGES = {
  'turned-on': {
    subject: 'Two-step verification was turned on',
    what: 'Two-step verification was turned on for your dashboard account at {org}: signing in now asks for a code from an authenticator app.',
    notYou:
      'If this was not you, someone else is signed in to your account and their app now holds your codes: contact your organization owner or our support at once.',
  },
  'turned-off': {
    subject: 'Two-step verification was turned off',
    what: 'Two-step verification was turned off for your dashboard account at {org}: signing in now asks only for your password, and your other sessions were signed out.',
    notYou:
      'If this was not you, change your password now, use "Sign out everywhere" in Settings, and set up two-step verification again.',
  },
  'new-recovery-codes': {
    subject: 'New recovery codes were made for your account',
    what: 'New two-step recovery codes were made for your dashboard account at {org}; every earlier recovery code stopped working.',
    notYou:
      'If this was not you, change your password now, use "Sign out everywhere" in Settings, and set up two-step verification again.',
  },
} as const;

export const twoStepChangedMail = (input: {
  to: string;
  organizationName: string;
  change: keyof typeof TWO_STEP_CHANGES;
}) => {
  const change = TWO_STEP_CHANGES[input.change];
  return render({
    to: input.to,
    subject: change.subject,
    paragraphs: [
      change.what.replace('{org}', () => `the organization named ${quotedName(input.organizationName)}`),
      change.notYou,
    ],
    footer: FOOTER,
  });
};

export const emailChangedMail = (input: { to: string; organizationName: string; newEmail: string }) =>
  render({
    to: input.to,
    subject: 'Your sign-in email was changed',
    paragraphs: [
      `The dashboard account in the organization named ${quotedName(input.organizationName)} that used this address now signs in with the address ${quotedName(input.newEmail)}.`,
      'If this was not you, contact your organization owner or our support at once.',
    ],
    footer: FOOTER,
  });

export const invitationMail = (input: {
  to: string;
  organizationName: string;
  invitedBy: string;
  role: string;
  url: string;
}) =>
  render({
    to: input.to,
    subject: 'You are invited to a payments dashboard',
    paragraphs: [
      `A member of the organization named ${quotedName(input.organizationName)} (signed in as ${quotedName(input.invitedBy)}) invited you to join its payments dashboard, as ${input.role}.`,
      'The link works once, for 7 days. You choose your password when you accept.',
    ],
    action: { label: 'Accept the invitation', url: input.url },
    footer: `${FOOTER} If you did not expect it, ignore this mail.`,
  });
