import { REJECT_REASONS } from '../../format/labels.ts';

/** What an ISO status code means, from what the payment itself carries (name and description). */
export const isoMeaning = (iso: { name: string; description?: string | undefined }): string =>
  iso.description ? `${iso.name}: ${iso.description}` : iso.name;

/** A reason code's name, with the words the Mock bank's customers read where we have them. */
export const reasonMeaning = (reason: { code: string; name: string }): string => {
  const words = REJECT_REASONS.find((entry) => entry.code === reason.code)?.hint;
  return words ? `${reason.name}: ${words}` : reason.name;
};
