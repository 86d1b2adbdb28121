import type { Logger } from '../logger.ts';

type Step = { name: string; run: () => Promise<void> };

/** Long enough for in-flight requests and job handlers; short enough for a container stop (10 s). */
const SHUTDOWN_TIMEOUT_MS = 9_000;

/**
 * Stops what a process started, in reverse order (stop accepting HTTP, stop the worker, close
 * the pool, then the embedded Postgres), on SIGINT/SIGTERM or after a failed start. A second
 * signal, or the timeout, exits at once.
 */
export class GracefulShutdown {
  readonly #steps: Step[] = [];
  readonly #logger: Logger;
  #running: Promise<void> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Register a stop step; steps run last-added first. */
  add(name: string, run: () => Promise<void>): void {
    this.#steps.unshift({ name, run });
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
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    for (const step of this.#steps) {
      try {
        await step.run();
      } catch (error) {
        this.#logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    clearTimeout(timer);
  }
}
