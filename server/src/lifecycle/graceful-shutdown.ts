import type { Logger } from '../logger.ts';

/**
 * The shutdown's time budget. A container runtime sends SIGTERM, then SIGKILL after its grace
 * period (Docker's default: 10 s). Every timer below fits inside the one above it: each step
 * has its own budget, the steps together take at most their sum, the sum is under
 * SHUTDOWN_TIMEOUT_MS, and that is under the grace period. Before, the process gave up at 9 s
 * while pg-boss alone might wait 10 s for its handlers.
 */
export const STOP_GRACE_PERIOD_MS = 10_000;
export const SHUTDOWN_TIMEOUT_MS = 9_000;
export const STEP_BUDGET_MS = {
  /** In-flight requests finish (each is already bounded by the statement timeout). */
  http: 3_000,
  /** Job handlers and a sweep in progress finish; pg-boss gets `queue` of it for its own stop. */
  background: 3_500,
  queue: 1_500,
  /** The pool closes (and the embedded cluster stops, in development). */
  database: 1_500,
} as const;

type Step = { name: string; run: () => Promise<void>; budgetMs: number };

/** A step without a budget of its own (quick, in-process work). */
const DEFAULT_STEP_BUDGET_MS = 500;

/**
 * Stops what a process started, in reverse order (stop accepting HTTP, stop the worker, close
 * the pool, then the embedded Postgres), on SIGINT/SIGTERM or after a failed start. A step that
 * overruns its budget is left behind (logged) and the next one starts. A second signal, or the
 * overall timeout, exits at once.
 */
export class GracefulShutdown {
  readonly #steps: Step[] = [];
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #running: Promise<void> | undefined;

  constructor(logger: Logger, options: { timeoutMs?: number } = {}) {
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  }

  /** Register a stop step; steps run last-added first, each given at most `budgetMs`. */
  add(name: string, run: () => Promise<void>, budgetMs: number = DEFAULT_STEP_BUDGET_MS): void {
    this.#steps.unshift({ name, run, budgetMs });
  }

  /** The most the registered steps can take together; must stay under the overall timeout. */
  get budgetMs(): number {
    return this.#steps.reduce((sum, step) => sum + step.budgetMs, 0);
  }

  installSignalHandlers(): void {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.#running) {
          this.#logger.warn({ signal }, 'second signal: exiting now');
          process.exit(130);
        }
        this.#logger.info({ signal }, 'shutting down');
        void this.run().then(() => process.exit(0));
      });
    }
  }

  run(): Promise<void> {
    this.#running ??= this.#runSteps();
    return this.#running;
  }

  async #runSteps(): Promise<void> {
    const timer = setTimeout(() => {
      this.#logger.error('shutdown timed out: exiting');
      process.exit(1);
    }, this.#timeoutMs);
    timer.unref();
    for (const step of this.#steps) {
      let overran: NodeJS.Timeout | undefined;
      const overrun = new Promise<'overran'>((resolve) => {
        overran = setTimeout(() => resolve('overran'), step.budgetMs);
      });
      try {
        const outcome = await Promise.race([step.run().then(() => 'done' as const), overrun]);
        if (outcome === 'overran') {
          this.#logger.warn({ step: step.name, budgetMs: step.budgetMs }, 'shutdown step overran its budget');
        }
      } catch (error) {
        this.#logger.error({ err: error, step: step.name }, 'shutdown step failed');
      } finally {
        clearTimeout(overran);
      }
    }
    clearTimeout(timer);
  }
}
