/** Captures the issuer's pino output (JSON lines) in memory, through the real logger with its redaction. */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../../issuer/logging.js';

export interface CapturedLog {
  logger: Logger;
  /** Everything written so far, as raw text. */
  text(): string;
  lines(): Record<string, unknown>[];
}

export function captureLog(level = 'info'): CapturedLog {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return {
    logger: createLogger({ level, stream }),
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
