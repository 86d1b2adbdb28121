import { describe, expect, test } from 'vitest';
import { boxStaysLast } from '../src/cli/box-stays-last.ts';
import { startBanner } from '../src/cli/start-banner.ts';

/** A launcher's screen with a hand-moved clock and timers. */
function screen() {
  let time = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  let next = 1;
  const written: string[] = [];
  const keeper = boxStaysLast({
    write: (_stream, text) => written.push(text),
    quietMs: 1500,
    windowMs: 60_000,
    now: () => time,
    setTimer: (run, ms) => {
      timers.set(next, { at: time + ms, run });
      return next++;
    },
    clearTimer: (id) => timers.delete(id as number),
  });
  const advance = (ms: number) => {
    time += ms;
    for (const [id, timer] of [...timers]) {
      if (timer.at <= time) {
        timers.delete(id);
        timer.run();
      }
    }
  };
  return { keeper, advance, text: () => written.join(''), tail: () => written.join('').trimEnd() };
}

const BOX = startBanner({
  publicBaseUrl: 'http://localhost:3000',
  seconds: '3.1',
  listening: '127.0.0.1:3000',
  mailInbox: 'http://127.0.0.1:1080/',
  embedded: true,
  demo: {
    organizationId: 'org_1',
    apiKeyId: 'key_1',
    apiKey: 'pis_test_secret',
    user: { email: 'demo@merchant.example', password: 'correct horse battery' },
  },
});

describe('npm start: the start box stays the last thing on screen (issue 34 item 13)', () => {
  test('log lines after the box: once quiet, the box is printed again below them', () => {
    const { keeper, advance, tail } = screen();
    keeper.pass('stdout', 'database: embedded Postgres\n', true);
    // The box arrives in two chunks, as a pipe may split it.
    keeper.pass('stdout', `\n${BOX.slice(0, 40)}`, true);
    keeper.pass('stdout', `${BOX.slice(40)}\n\n`, true);
    expect(keeper.box()).toBe(BOX);
    keeper.pass('stdout', '{"level":30,"msg":"worker started"}\n', true);
    keeper.pass('stdout', '\nSandbox Bank ready in 4.2 s\n', false);
    advance(1000);
    keeper.pass('stderr', '{"level":40,"msg":"a warning"}\n', false);
    advance(1000);
    expect(tail().endsWith(BOX)).toBe(false); // not quiet for 1.5 s yet
    advance(600);
    expect(tail().endsWith(BOX)).toBe(true);
    expect(tail()).toContain('correct horse battery');
  });

  test('nothing after the box: printed once; nothing before it: never invented', () => {
    const quiet = screen();
    quiet.keeper.pass('stdout', `${BOX}\n`, true);
    quiet.advance(5000);
    expect(quiet.text().split(BOX).length - 1).toBe(1);

    const boxless = screen();
    boxless.keeper.pass('stdout', 'log line\n', true);
    boxless.advance(5000);
    expect(boxless.text()).toBe('log line\n');
  });

  test('a bank’s box-like lines are not taken for the service’s; after the start window, logs just flow', () => {
    const { keeper, advance, text } = screen();
    keeper.pass('stdout', '┌ not the service ┐\n└───┘\n', false);
    expect(keeper.box()).toBeNull();
    keeper.pass('stdout', `${BOX}\n`, true);
    advance(61_000);
    keeper.pass('stdout', 'a request log line\n', true);
    advance(5000);
    expect(text().split(BOX).length - 1).toBe(1);
  });
});
