import type { Logger } from '../logger.ts';

/**
 * The shutdown's time budget. A container runtime sends SIGTERM, then SIGKILL after its grace
 * period. On SIGTERM an API process first drains (SHUTDOWN_DRAIN_MS, default DEFAULT_DRAIN_MS:
 * `/ready` answers 503 while everything is still served, see http-drain.ts), then stops. Every
 * timer below fits inside the one above it: each step has its own budget, the steps together
 * take at most their sum, the sum is under SHUTDOWN_TIMEOUT_MS, and the drain plus that is under
 * the grace period our compose file and the runbook set (20 s; Docker's default is 10 s,
 * Kubernetes' 30 s). Before, the process gave up at 9 s while pg-boss alone might wait 10 s for
 * its handlers.
 */
export const STOP_GRACE_PERIOD_MS = 20_000;
export const DEFAULT_DRAIN_MS = 5_000;
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
  readonly #drainMs: number;
  readonly #drains: (() => void)[] = [];
  #running: Promise<void> | undefined;

  /** `drainMs`: how long a SIGTERM keeps serving (not ready) before the steps run. */
  constructor(logger: Logger, options: { timeoutMs?: number; drainMs?: number } = {}) {
    this.#logger = logger;
    this.#timeoutMs = options.timeoutMs ?? SHUTDOWN_TIMEOUT_MS;
    this.#drainMs = options.drainMs ?? 0;
  }

  /**
   * Something to begin when a drain starts (the HTTP drain: `/ready` says 503). A process that
   * registers none (the worker) has nothing to drain and stops at once.
   */
  onDrain(begin: () => void): void {
    this.#drains.push(begin);
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
        // SIGTERM is how a platform or a deploy stops an instance: drain first. SIGINT is a
        // person at a terminal (Ctrl-C): no load balancer to wait for.
        void this.run({ drain: signal === 'SIGTERM' }).then(() => process.exit(0));
      });
    }
  }

  /** `drain`: begin the drains and keep serving for `drainMs` before the steps (SIGTERM). */
  run(options: { drain?: boolean } = {}): Promise<void> {
    this.#running ??= this.#runSteps(options.drain === true);
    return this.#running;
  }

  async #runSteps(drain: boolean): Promise<void> {
    const begun = performance.now();
    const drainMs = drain && this.#drains.length > 0 ? this.#drainMs : 0;
    const timer = setTimeout(() => {
      this.#logger.error('shutdown timed out: exiting');
      process.exit(1);
    }, drainMs + this.#timeoutMs);
    timer.unref();
    if (drainMs > 0) {
      const started = performance.now();
      for (const begin of this.#drains) begin();
      this.#logger.info({ drainMs }, 'draining: not ready, still serving');
      await new Promise((resolve) => setTimeout(resolve, drainMs));
      this.#logger.info({ drainedMs: Math.round(performance.now() - started) }, 'drained: stopping');
    }
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
    this.#logger.info({ shutdownMs: Math.round(performance.now() - begun) }, 'stopped');
  }
}
