import autocannon from 'autocannon';

/**
 * One autocannon run, in its own process so the load generator does not share an event loop
 * with the server it measures. Input: a JSON LoadSpec as the only argument. Output: a JSON
 * LoadResult on stdout.
 */

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  /** Paths visited in turn (one request each, round robin across connections). */
  paths: string[];
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead (a burst of a given size). */
  amount?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  failed: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSeconds,
  ...(spec.amount === undefined ? {} : { amount: spec.amount }),
  method: spec.method,
  headers: spec.headers,
  ...(spec.body === undefined ? {} : { body: spec.body }),
  requests: [
    {
      setupRequest: (request) => ({ ...request, path: spec.paths[next++ % spec.paths.length] ?? '/' }),
    },
  ],
});
const output: LoadResult = {
  requestsPerSecond: result['2xx'] / result.duration,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  ok: result['2xx'],
  failed: result.non2xx + result.errors + result.timeouts,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
