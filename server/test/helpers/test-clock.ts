import type { Clock } from '../../src/clock.ts';

/** A clock that only moves when told to. */
export class TestClock implements Clock {
  #now: Date;

  constructor(start: Date | string = '2026-01-15T10:00:00.000Z') {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  set(at: Date | string): void {
    this.#now = new Date(at);
  }

  advance(milliseconds: number): void {
    this.#now = new Date(this.#now.getTime() + milliseconds);
  }
}
