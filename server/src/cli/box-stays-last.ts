/**
 * `npm start` runs the service and the sandbox bank side by side, and both keep logging for a
 * few seconds after the service prints its start box (the worker's first jobs, the bank's
 * start): the box with the one-time credentials scrolled away under them (issue 34 item 13).
 * The launcher passes every child's output through here: it is written at once, and once the
 * service's box has been seen, the box is printed again whenever the output has been quiet for
 * `quietMs` after other lines, for `windowMs` after the box first showed, so it is the last
 * thing on the screen once the start has settled. No imports: the launcher loads nothing else.
 */
export interface BoxStaysLastOptions {
  /** Where the output goes (the launcher's own stdout and stderr). */
  write: (stream: 'stdout' | 'stderr', text: string) => void;
  quietMs: number;
  windowMs: number;
  now?: () => number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export interface BoxStaysLast {
  /** A chunk a child wrote; `fromService`: the service's stdout, where its box is printed. */
  pass(stream: 'stdout' | 'stderr', chunk: string, fromService: boolean): void;
  /** The box as last seen (for tests and a final reprint), or null before it showed. */
  box(): string | null;
  stop(): void;
}

const BOX_TOP = '┌';
const BOX_BOTTOM = '└';

export function boxStaysLast(options: BoxStaysLastOptions): BoxStaysLast {
  const now = options.now ?? Date.now;
  const setTimer = options.setTimer ?? ((run, ms) => setTimeout(run, ms).unref());
  const clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  let partial = '';
  let capturing: string[] | null = null;
  let box: string | null = null;
  let shownAt = 0;
  let timer: unknown;
  let stopped = false;

  const reprint = () => {
    timer = undefined;
    if (box && !stopped) options.write('stdout', `\n${box}\n\n`);
  };

  /** Lines of the service's stdout: the box is a run from a line starting ┌ to one starting └. */
  const watch = (chunk: string) => {
    const lines = `${partial}${chunk}`.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith(BOX_TOP)) capturing = [line];
      else if (capturing) {
        capturing.push(line);
        if (line.startsWith(BOX_BOTTOM)) {
          box = capturing.join('\n');
          capturing = null;
          shownAt = now();
          return true;
        }
      }
    }
    return false;
  };

  return {
    pass(stream, chunk, fromService) {
      options.write(stream, chunk);
      const boxInThisChunk = fromService && stream === 'stdout' && watch(chunk);
      if (stopped || !box || boxInThisChunk || capturing) return;
      if (now() - shownAt > options.windowMs) return;
      if (chunk.trim() === '') return;
      if (timer !== undefined) clearTimer(timer);
      timer = setTimer(reprint, options.quietMs);
    },
    box: () => box,
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimer(timer);
    },
  };
}
