import { z } from 'zod';
import { Email, NewPassword } from './dashboard.ts';

/**
 * Contract of the account lifecycle (issue 24): email verification, forgotten and changed
 * passwords, a changed email, signing out everywhere. Tokens come from mailed links (the part
 * after `#token=`): 43 base64url characters; anything else is answered as an invalid link.
 */
const LinkToken = z.string().min(1).max(200);

export const VerifyEmailInput = z.object({ token: LinkToken });
export const EmailVerified = z.object({ verified: z.literal(true), email: z.string() });

export const RequestPasswordResetInput = z.object({ email: Email });
/** The same answer whether or not the address has an account. */
export const PasswordResetRequested = z.object({ requested: z.literal(true) });

export const ResetPasswordInput = z.object({ token: LinkToken, password: NewPassword });
export const PasswordReset = z.object({ reset: z.literal(true) });

/** Re-authentication first: the current password, then the change. */
export const ChangePasswordInput = z.object({
  currentPassword: z.string().max(1024),
  newPassword: NewPassword,
});
export const PasswordChanged = z.object({ changed: z.literal(true), otherSessionsEnded: z.int() });

export const ChangeEmailInput = z.object({ password: z.string().max(1024), newEmail: Email });
export const EmailChanged = z.object({ email: z.string(), emailVerified: z.literal(false) });

export const SignedOutEverywhere = z.object({ otherSessionsEnded: z.int() });
export const VerificationSent = z.object({ sent: z.literal(true) });

// Two-step sign-in (issue 24 item 4): TOTP, RFC 6238, 6 digits every 30 s.
/** A TOTP code (6 digits) or a recovery code (`xxxx-xxxx-xxxx-xxxx`); spaces are ignored. */
export const TwoStepCode = z
  .string()
  .max(64, { error: 'must be at most 64 characters' })
  .transform((code) => code.replace(/\s+/g, ''))
  .pipe(z.string().min(6, { error: 'enter the 6-digit code or a recovery code' }));
/** The password was right and the account has two-step verification: the code comes next. */
export const TwoStepChallenge = z.object({
  twoStepRequired: z.literal(true),
  /** Single use, 5 minutes: sent back with the code. */
  challenge: z.string(),
});
export const SignInCodeInput = z.object({ challenge: LinkToken, code: TwoStepCode });
export const TwoStepStatus = z.object({
  enabled: z.boolean(),
  /** The organization asks it of every member. */
  requiredByOrganization: z.boolean(),
  /** Unused recovery codes left (0 when off). */
  recoveryCodesLeft: z.int(),
});
export const TwoStepSetup = z.object({
  /** Base32: the "Setup key" typed into an authenticator app; shown only during setup. */
  setupKey: z.string(),
  /** `otpauth://totp/...` for the QR code. */
  otpauthUri: z.string(),
});
export const TwoStepConfirmInput = z.object({ code: TwoStepCode });
export const TwoStepEnabled = z.object({
  enabled: z.literal(true),
  /** Ten single-use codes, shown this once (stored only as hashes). */
  recoveryCodes: z.array(z.string()),
});
export const RequireTwoStepInput = z.object({ required: z.boolean() });
/**
 * Turning two-step off and new recovery codes: the current password and a current code (from
 * the app or a recovery code), so neither a stolen session nor a stolen password alone does it.
 */
export const TwoStepReauthInput = z.object({ password: z.string().max(1024), code: TwoStepCode });
export const RecoveryCodesRegenerated = z.object({
  /** Ten new single-use codes, shown this once; every earlier code stopped working. */
  recoveryCodes: z.array(z.string()),
});
export const TwoStepTurnedOff = z.object({ enabled: z.literal(false) });

// Team members and roles (issue 24 item 5).
export const TEAM_ROLE_VALUES = ['owner', 'developer', 'support', 'viewer'] as const;
export const TeamRole = z.enum(TEAM_ROLE_VALUES);
export type TeamRole = z.infer<typeof TeamRole>;
export const InviteInput = z.object({ email: Email, role: TeamRole });
export const Invited = z.object({ invited: z.literal(true), email: z.string(), role: TeamRole });
export const TeamMember = z.object({
  id: z.string(),
  email: z.string(),
  role: TeamRole,
  twoStep: z.boolean(),
});
export const TeamList = z.object({
  members: z.array(TeamMember),
  invitations: z.array(z.object({ email: z.string(), role: TeamRole, expiresAt: z.string() })),
});
export const MemberIdInput = z.object({ userId: z.string().min(1).max(40) });
export const WithdrawInvitationInput = z.object({ email: Email });
export const InvitationWithdrawn = z.object({ withdrawn: z.literal(true), email: z.string() });
/** "Confirm it's you": the password, or a current two-step code (app or recovery code). */
export const ConfirmIdentityInput = z.union([
  z.strictObject({ password: z.string().min(1).max(1024) }),
  z.strictObject({ code: TwoStepCode }),
]);
export const IdentityConfirmed = z.object({ confirmedAt: z.string() });
export const SetRoleInput = z.object({ userId: z.string().min(1).max(40), role: TeamRole });
export const MemberRoleSet = z.object({ id: z.string(), email: z.string(), role: TeamRole });
export const MemberRemoved = z.object({ removed: z.literal(true), id: z.string(), email: z.string() });
export const InvitationTokenInput = z.object({ token: LinkToken });
export const InvitationDetails = z.object({
  email: z.string(),
  role: TeamRole,
  organizationName: z.string(),
  invitedBy: z.string(),
});
export const AcceptInvitationInput = z.object({ token: LinkToken, password: NewPassword });
