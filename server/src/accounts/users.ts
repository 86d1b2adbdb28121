import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { randomId, validationFailed } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { DashboardUser } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/** Emails compare regardless of case: stored and looked up trimmed and lower-cased. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

export const emailTaken = (field = 'email') =>
  validationFailed([{ field, message: 'is already registered: sign in instead' }]);

/** A password for someone who did not choose one (CLI, demo user): 144 random bits. */
export const generatePassword = (): string => randomBytes(18).toString('base64url');

/**
 * Adds a dashboard user to an organization (sign-up, the operator CLI and the demo seed). The
 * password must already satisfy `NewPassword`; it is hashed before the caller's transaction.
 * An email in use (in any case) is VALIDATION_FAILED on `email`, also when two requests race.
 */
export async function createUser(
  em: EntityManager,
  input: { organizationId: string; email: string; passwordHash: string },
  clock: Clock,
): Promise<{ userId: string }> {
  const email = emailKey(input.email);
  if ((await em.count(DashboardUser, { email })) > 0) throw emailTaken();
  const user = em.create(DashboardUser, {
    id: randomId('usr'),
    organization: input.organizationId,
    email,
    passwordHash: input.passwordHash,
    createdAt: clock.now(),
  });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken();
    throw error;
  }
  return { userId: user.id };
}

export const findUserByEmail = (em: EntityManager, email: string) =>
  em.fork().findOne(DashboardUser, { email: emailKey(email) });
