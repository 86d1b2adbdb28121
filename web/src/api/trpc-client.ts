import type { AppRouter } from '@pis/server/router';
import { createTRPCClient, httpLink } from '@trpc/client';

/**
 * The one tRPC client of the SPA, typed by the server's router (a type-only import: no server
 * code reaches the bundle). `httpLink`, not batched: the pages make a handful of calls, and one
 * request per call keeps the URLs readable and simple to mock. pages-api.ts is the only caller.
 */
export const trpc = createTRPCClient<AppRouter>({
  links: [httpLink({ url: new URL('/trpc', window.location.origin).href })],
});
