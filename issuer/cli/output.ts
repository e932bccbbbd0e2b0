/**
 * Where the CLI writes (docs/protocol.md "The admin CLI"): with
 * --json, stdout holds exactly one JSON document; logs and progress always go
 * to stderr, so they can never corrupt what a script reads.
 */
import { SingleBar } from 'cli-progress';
import { NO_PROGRESS, type Progress } from '../admin/progress.js';
import { AdminError, exitCodeFor, type AdminErrorCode } from '../error-catalogue.js';

export interface Output {
  readonly json: boolean;
  /** The command's result: `value` as JSON with --json, else the human text. */
  result(value: unknown, human: () => string): void;
  /** A log line for the operator, on stderr. */
  log(message: string): void;
  /** A progress bar on stderr, shown only to a human at a terminal. */
  progress(total: number, label: string): Progress;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(value)}\n`);
      else {
        const text = human();
        if (text !== '') process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
    },
    log(message) {
      process.stderr.write(`${message}\n`);
    },
    progress(total, label) {
      if (!showProgressBar(json, process.stderr.isTTY === true, total)) return NO_PROGRESS;
      const bar = new SingleBar({
        format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta}s`,
        stream: process.stderr,
        hideCursor: true,
      });
      bar.start(total, 0);
      return { advance: (count) => bar.increment(count), stop: () => bar.stop() };
    },
  };
}

/** A bar is for a person watching a long job: not for scripts (--json), pipes or a single ticket. */
export function showProgressBar(json: boolean, stderrIsTty: boolean, total: number): boolean {
  return !json && stderrIsTty && total > 1;
}

/** The error as the contract's JSON document and one-line message. */
export function describeFailure(error: unknown): { code: AdminErrorCode; message: string } {
  if (error instanceof AdminError) return { code: error.code, message: oneLine(error.message) };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message: oneLine(message) };
}

export function reportFailure(error: unknown, json: boolean): number {
  const { code, message } = describeFailure(error);
  process.stderr.write(`ticket-issuer: ${message}\n`);
  if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  return exitCodeFor(code);
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();
