/**
 * One path segment from a caller-supplied id. An empty id would silently turn `GET /payments/{id}`
 * into the list endpoint, so it is refused here.
 */
export const segment = (id: string, what: string): string => {
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError(`${what} must be a non-empty string`);
  return encodeURIComponent(id);
};
