import argon2 from 'argon2';
import { afterEach, expect, test, vi } from 'vitest';
import { passwordCheckReady, spendPasswordCheck } from '../../src/accounts/password-hash.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

test('an unknown email costs one argon2 verify, like a wrong password, from the very first sign-in', async () => {
  // The dummy hash exists before any request: made lazily, the first unknown email of each
  // process cost a hash and a verify (about twice a wrong password), telling it apart.
  await passwordCheckReady;
  const hash = vi.spyOn(argon2, 'hash');
  const verify = vi.spyOn(argon2, 'verify');
  await spendPasswordCheck('whatever the attacker typed');
  expect(hash).not.toHaveBeenCalled();
  expect(verify).toHaveBeenCalledTimes(1);
});
