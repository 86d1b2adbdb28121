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
