import { silentLogger } from '../src/logger.ts';
import { startMetricsServer } from '../src/observability/metrics-server.ts';
import { startTracing } from '../src/observability/tracing.ts';
import type { Measured, MeasureLoad } from './cpu-meter.ts';
import { startService } from './service.ts';

/**
 * What operating the service costs a request (issue 20): the merchants' request log, a metrics
 * scrape during the load, and tracing. Each variant's get and create are measured in turns with
 * the service as `npm start` runs it (request log on, tracing off, metrics listener idle), the
 * best of ROUNDS each, on the same database; the figure is the difference in CPU per request
 * (this process and Postgres together) and in p99. Tracing's variant runs last: once the SDK is
 * registered in a process it stays registered.
 */

const ROUNDS = 2;
/** Prometheus scrapes every 15 to 60 s; once a second is the harsh case. */
const SCRAPE_EVERY_MS = 1_000;

export interface CostRow {
  name: string;
  load: 'create' | 'get';
  variant: Measured;
  reference: Measured;
}

export async function measureOperationsCosts(
  measure: MeasureLoad,
  reference: { url: string; headers: Record<string, string>; ids: string[] },
  databaseUrl: string,
  dataDir: string,
): Promise<CostRow[]> {
  const rows: CostRow[] = [];
  const compare = async (
    name: string,
    url: string,
    headers: Record<string, string>,
    during?: () => () => void,
  ) => {
    for (const load of ['create', 'get'] as const) {
      let best: { variant?: Measured; reference?: Measured } = {};
      for (let round = 0; round < ROUNDS; round++) {
        const base = await measure(reference.url, load, reference.headers, reference.ids);
        const stop = during?.();
        const variant = await measure(url, load, headers, reference.ids);
        stop?.();
        best = {
          reference: cheaper(best.reference, base),
          variant: cheaper(best.variant, variant),
        };
      }
      rows.push({ name, load, variant: best.variant as Measured, reference: best.reference as Measured });
    }
  };

  // The request log off (REQUEST_LOG=off): a second instance on the same database.
  const unlogged = await startService(databaseUrl, dataDir, {
    runWorker: false,
    env: { REQUEST_LOG: 'off' },
  });
  try {
    const url = await unlogged.app.listen({ host: '127.0.0.1', port: 0 });
    // The reference's key works on every instance of the database.
    await compare('request log off', url, reference.headers);
  } finally {
    await unlogged.close();
  }

  // A scrape of every metric family once a second during the load, over the metrics listener.
  const metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, logger: silentLogger() });
  try {
    await compare('scraped every second', reference.url, reference.headers, () => {
      const timer = setInterval(() => {
        fetch(`http://127.0.0.1:${metrics.port}/metrics`).then(
          (response) => response.text(),
          () => '',
        );
      }, SCRAPE_EVERY_MS);
      return () => clearInterval(timer);
    });
  } finally {
    await metrics.close();
  }

  // Tracing on, every span recorded and handed to a batch processor whose exporter drops them
  // (the cost of making spans, without a collector's network in the figure).
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace');
  const tracing = await startTracing({ endpoint: 'http://127.0.0.1:9', serviceName: 'bench' }, [
    new BatchSpanProcessor({
      exporter: { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} },
    }),
  ]);
  try {
    const traced = await startService(databaseUrl, dataDir, { runWorker: false });
    try {
      const url = await traced.app.listen({ host: '127.0.0.1', port: 0 });
      await compare('tracing on', url, reference.headers);
    } finally {
      await traced.close();
    }
  } finally {
    await tracing.shutdown();
  }
  return rows;
}

function cheaper(previous: Measured | undefined, next: Measured): Measured {
  return previous && previous.nodeMicros + previous.postgresMicros <= next.nodeMicros + next.postgresMicros
    ? previous
    : next;
}

export function printOperationsCosts(rows: CostRow[]): void {
  const pad = (text: string, width: number) => text.padEnd(width);
  console.log(
    `\n${pad('operations cost (vs npm start)', 34)}${pad('CPU µs/req', 22)}${pad('p99 ms', 14)}difference`,
  );
  for (const { name, load, variant, reference } of rows) {
    const cpu = (m: Measured) => m.nodeMicros + m.postgresMicros;
    const delta = cpu(variant) - cpu(reference);
    console.log(
      `${pad(`${load}, ${name}`, 34)}${pad(`${cpu(variant).toFixed(0)} vs ${cpu(reference).toFixed(0)}`, 22)}` +
        `${pad(`${variant.p99Ms} vs ${reference.p99Ms}`, 14)}${delta >= 0 ? '+' : ''}${delta.toFixed(0)} µs (${((delta / cpu(reference)) * 100).toFixed(0)}%)`,
    );
  }
}
