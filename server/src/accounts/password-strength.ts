import { validationFailed } from '@pis/shared';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/**
 * "Not guessable" as zxcvbn judges it (score 3 of 4: "safely unguessable", ~10^8 guesses and up),
 * with the person's own words as inputs: a password made of the organization's name or the
 * email scores low. Length alone (NewPassword's 12 characters) lets `passwordpassword` through.
 * Server-side only: the dictionaries are ~1 MB, too much for the dashboard's bundle. Loaded on
 * the first password checked, not at start: loaded and built they take ~60 MB of a process's
 * memory, which an instance that only serves the API never needs (issue 32 item 4).
 */
export const MIN_PASSWORD_SCORE = 3;

let zxcvbn: Promise<ZxcvbnFactory> | undefined;
const estimator = () => {
  zxcvbn ??= (async () => {
    const [{ ZxcvbnFactory }, common, english] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary },
      graphs: common.adjacencyGraphs,
      translations: english.translations,
    });
  })();
  return zxcvbn;
};

/** Throws VALIDATION_FAILED on `field` when the password is guessable; says what would help. */
export async function assertStrongPassword(
  password: string,
  userInputs: readonly string[],
  field = 'password',
): Promise<void> {
  // Each input whole, squeezed (`acmecoffeeltd`) and word by word, so none of them helps.
  const words = userInputs
    .flatMap((input) => [input, input.replace(/[^\p{L}\p{N}]+/gu, ''), ...input.split(/[^\p{L}\p{N}]+/u)])
    .map((word) => word.toLowerCase())
    .filter(Boolean);
  const result = (await estimator()).check(password, words);
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const hint = result.feedback.warning ?? result.feedback.suggestions[0];
  throw validationFailed([
    {
      field,
      message: `is too easy to guess${hint ? ` (${hint.replace(/\.$/, '').toLowerCase()})` : ''}: add more words or characters`,
    },
  ]);
}
