import type { AnyRouter } from '@trpc/server';
import { publicFailure } from './public-failure.ts';
import type { Meta } from './trpc.ts';

/**
 * HTTP status of a single call, for both adapters: the mapped failure status (e.g. 410 or 503,
 * which tRPC's own code table cannot express) or the procedure's declared `successStatus`.
 * Batched tRPC calls keep tRPC's own status.
 */
export function createResponseMeta(router: AnyRouter) {
  const procedures = router._def.procedures as Record<string, { _def: { meta?: Meta } } | undefined>;
  return ({
    paths,
    errors,
  }: {
    paths?: readonly string[] | undefined;
    errors: readonly unknown[];
  }): { status?: number; headers?: Record<string, string> } => {
    if (paths && paths.length > 1) return {};
    const [error] = errors;
    if (error) {
      const failure = publicFailure(error);
      return failure.headers
        ? { status: failure.status, headers: failure.headers }
        : { status: failure.status };
    }
    const status = paths?.[0] ? procedures[paths[0]]?._def.meta?.successStatus : undefined;
    return status ? { status } : {};
  };
}
