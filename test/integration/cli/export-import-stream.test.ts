/**
 * `import` reads its file as a stream, in two passes (issuer/transfer/read.ts; docs/issuer.md "Moving
 * an issuer to the venue and back"): the layout of the JSON does not matter, its members' order does (part
 * of the format), and a file that changes between the check and the merge rolls the merge back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../../../issuer/error-catalogue.js';
import type { ExportFile } from '../../../issuer/transfer/file.js';
import { importIssuer, type ImportResult } from '../../../issuer/transfer/import.js';
import { checkExportFile } from '../../../issuer/transfer/read.js';
import { NO_PROGRESS } from '../../../issuer/admin/progress.js';
import { cliFailure, cliJson, createEvent, initIssuer, issueTickets, scratchDir } from '../../support/cli-harness.js';

const SLOW = 60_000;

async function exportedIssuer(): Promise<{ file: string; text: string }> {
  const { data } = await initIssuer();
  const { eid } = await createEvent(data);
  await issueTickets(data, eid, 3);
  const file = path.join(scratchDir('stream-'), 'issuer.json');
  await cliJson(['export', '--data', data, '--to', file]);
  return { file, text: fs.readFileSync(file, 'utf8') };
}

function write(content: string): string {
  const file = path.join(scratchDir('stream-'), 'edited.json');
  fs.writeFileSync(file, content);
  return file;
}

const newDataDir = (): string => path.join(scratchDir('stream-venue-'), 'issuer-data');

describe('import reads the file as a stream', () => {
  it(
    'imports the same document in any JSON layout, and refuses members out of order or text after the end',
    async () => {
      const { text } = await exportedIssuer();
      const document = JSON.parse(text) as ExportFile;
      // Another layout of the same JSON (the checksum is over the values, not the bytes).
      const pretty = await cliJson<ImportResult>(['import', '--data', newDataDir(), '--from', write(JSON.stringify(document, null, 2))]);
      expect(pretty.counts.tickets.added).toBe(3);

      // The tickets before the events (the same members and checksum otherwise).
      const names = Object.keys(document);
      const [events, tickets] = [names.indexOf('events'), names.indexOf('tickets')];
      [names[events], names[tickets]] = [names[tickets]!, names[events]!];
      const reordered = Object.fromEntries(names.map((name) => [name, document[name as keyof ExportFile]]));
      const cases: [string, string][] = [
        [JSON.stringify(reordered), '"events" is missing (the tables come in the order export writes them)'],
        [
          JSON.stringify(Object.fromEntries([['sha256', document.sha256], ...Object.entries(document)])),
          '"sha256" must be the last member',
        ],
        [JSON.stringify({ ...document, signing_keys: undefined }), '"signing_keys" is missing'],
        [JSON.stringify({ ...document, extra: [] }), '"extra" comes after "sha256", which must be last'],
        [`${text}{}`, 'expected nothing after the closing "}"'],
        [text.replace('"tickets":[', '"tickets":[,'), 'expected an element of "tickets"'],
      ];
      await Promise.all(
        cases.map(async ([content, words]) => {
          const data = newDataDir();
          const failure = await cliFailure(['import', '--data', data, '--from', write(content)]);
          expect({ code: failure.code, message: failure.message }).toMatchObject({
            code: 'IMPORT_FILE_INVALID',
            message: expect.stringContaining(words),
          });
          expect(fs.existsSync(data)).toBe(false);
        }),
      );
    },
    SLOW,
  );

  it(
    'a file that changes between the check and the merge is refused, and the new data dir is not left behind',
    async () => {
      const { file } = await exportedIssuer();
      const checked = checkExportFile(file);
      fs.appendFileSync(file, '\n');
      const data = newDataDir();
      const failure = await importIssuer(data, checked, new Date(), () => NO_PROGRESS).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AdminError);
      expect(failure).toMatchObject({ code: 'IMPORT_FILE_INVALID', message: expect.stringContaining('it changed while it was imported') });
      expect(fs.existsSync(data)).toBe(false);
    },
    SLOW,
  );
});
