import { validationFailed } from '@pis/shared';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';

/**
 * "Not guessable" as zxcvbn judges it (score 3 of 4: "safely unguessable", ~10^8 guesses and up),
 * with the person's own words as inputs: a password made of the organization's name or the
 * email scores low. Length alone (NewPassword's 12 characters) lets `passwordpassword` through.
 * Server-side only: the dictionaries are ~1 MB, too much for the dashboard's bundle.
 */
export const MIN_PASSWORD_SCORE = 3;

let zxcvbn: ZxcvbnFactory | undefined;
const estimator = () => {
  zxcvbn ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
  return zxcvbn;
};

/** Throws VALIDATION_FAILED on `field` when the password is guessable; says what would help. */
export function assertStrongPassword(
  password: string,
  userInputs: readonly string[],
  field = 'password',
): void {
  // Each input whole, squeezed (`acmecoffeeltd`) and word by word, so none of them helps.
  const words = userInputs
    .flatMap((input) => [input, input.replace(/[^\p{L}\p{N}]+/gu, ''), ...input.split(/[^\p{L}\p{N}]+/u)])
    .map((word) => word.toLowerCase())
    .filter(Boolean);
  const result = estimator().check(password, words);
  if (result.score >= MIN_PASSWORD_SCORE) return;
  const hint = result.feedback.warning ?? result.feedback.suggestions[0];
  throw validationFailed([
    {
      field,
      message: `is too easy to guess${hint ? ` (${hint.replace(/\.$/, '').toLowerCase()})` : ''}: add more words or characters`,
    },
  ]);
}
