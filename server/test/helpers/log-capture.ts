import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.ts';

/** A real logger (our redaction and serializers) at trace level, writing into memory. */
export function capturedLogger(): {
  logger: Logger;
  text: () => string;
  lines: () => Record<string, unknown>[];
} {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const text = () => chunks.join('');
  return {
    logger: createLogger('trace', sink),
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
