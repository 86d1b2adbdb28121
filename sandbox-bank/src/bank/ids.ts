import { randomBytes } from 'node:crypto';

/** Opaque, unguessable ids with a readable prefix; within the standard's lengths (40 for payments). */
export const newId = (prefix: string) => `${prefix}-${randomBytes(16).toString('hex')}`;

/** What an id in a path may look like before it goes near a query. */
export const ID_SHAPE = /^[a-z]{2,4}-[0-9a-f]{32}$/;
