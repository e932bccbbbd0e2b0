/**
 * How a long operation (issuing many tickets, an import) reports its
 * progress: the CLI draws a bar on stderr for a person at a terminal
 * (issuer/cli/output.ts); everyone else passes NO_PROGRESS.
 */
export interface Progress {
  advance(count: number): void;
  stop(): void;
}

/** Starts the progress of `total` steps, shown under `label`. */
export type StartProgress = (total: number, label: string) => Progress;

export const NO_PROGRESS: Progress = { advance: () => {}, stop: () => {} };
