/**
 * Export files changed as a test needs them (docs/issuer.md "Moving an issuer to the venue and back"): written again
 * with their checksum made again, so only the rules of their rows can refuse them, and the refusals expected of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { digestOf, type ExportFile } from '../../issuer/transfer/file.js';
import { cliFailure, scratchDir } from './cli-harness.js';

/** A file written again with `change` made to it, its checksum made again: a file export could have written. */
export function rewritten(file: string, change: (document: ExportFile & Record<string, unknown>) => void): string {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as ExportFile & Record<string, unknown>;
  change(document);
  document.sha256 = digestOf(document);
  const out = path.join(scratchDir('rewritten-'), 'file.json');
  fs.writeFileSync(out, JSON.stringify(document));
  return out;
}

/** A change to an export file, and the words the import's refusal must hold. */
export type RefusalCase = [(d: ExportFile & Record<string, unknown>) => void, string];

/** Each changed copy of `file` is refused IMPORT_FILE_INVALID with its words, and no data dir is left behind. */
export async function expectEachRefused(file: string, cases: readonly RefusalCase[]): Promise<void> {
  await Promise.all(
    cases.map(async ([change, words]) => {
      const fresh = path.join(scratchDir('bad-'), 'issuer-data');
      const failure = await cliFailure(['import', '--data', fresh, '--from', rewritten(file, change)]);
      expect({ code: failure.code, words, message: failure.message }).toMatchObject({
        code: 'IMPORT_FILE_INVALID',
        words,
        message: expect.stringContaining(words),
      });
      expect(fs.existsSync(fresh)).toBe(false);
    }),
  );
}
