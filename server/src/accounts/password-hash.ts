import argon2 from 'argon2';

/**
 * argon2id with OWASP's minimum parameters (19 MiB, 2 passes, 1 lane): tens of milliseconds
 * here, so a sign-in costs the server little while every offline guess costs an attacker the
 * same. The PHC string carries its own salt and parameters, so they can be raised later without
 * a migration.
 */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

export async function passwordMatches(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    // A malformed stored hash never signs anyone in.
    return false;
  }
}

/**
 * For an unknown email: verify against a hash of nothing anyone knows, so the answer takes as
 * long as for a wrong password and timing does not tell which emails have accounts. Made when
 * the module loads, not on the first unknown email: that one would otherwise cost a hash too.
 */
const dummy: Promise<string> = hashPassword(globalThis.crypto.randomUUID());
/** Settles once the dummy hash exists (tests wait for it). */
export const passwordCheckReady: Promise<unknown> = dummy.catch(() => undefined);

export async function spendPasswordCheck(password: string): Promise<void> {
  await passwordMatches(await dummy, password);
}
