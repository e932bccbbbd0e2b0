// The project's own ESLint configuration (eslint.config.js) turns both layer rules on: each import the layers
// refuse, linted as a file at its real path, is an error, and so is a circle through the files on disk
// (docs/architecture.md "Tools that keep the layers"). Integration: ESLint reads the config and the repository's files.
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The messages of `rule` for `text` linted as the file at `path` (repository-relative), under eslint.config.js. */
async function messages(path: string, text: string, rule: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}${path}` });
  return result!.messages.filter(({ ruleId }) => ruleId === rule).map(({ message }) => message);
}

describe('eslint.config.js: the layers', () => {
  it.each([
    [
      'issuer/services/dashboard.ts',
      "import { issueTickets } from '../admin/issuance.js';",
      /issuer\/services\/ may not import issuer\/admin\/issuance/,
    ],
    [
      'issuer/store/checkins.ts',
      "import { checkIn } from '../services/check-in.js';",
      /issuer\/store\/ may not import issuer\/services\/check-in/,
    ],
    ['issuer/admin/events.ts', "import { output } from '../cli/output.js';", /issuer\/admin\/ may not import issuer\/cli\/output/],
    ['protocol/verdict.ts', "import Database from 'better-sqlite3';", /better-sqlite3 does I\/O: protocol\/ imports no I\/O package/],
    ['renderer/app.ts', "import keytar from 'keytar';", /keytar does I\/O: renderer\/ imports no I\/O package/],
    ['main/kiosk/decide/lanes.ts', "import { readFileSync } from 'node:fs';", /main\/kiosk\/decide\/ imports no Node module/],
    ['main/kiosk/decide/lanes.ts', "import Database from 'better-sqlite3';", /better-sqlite3 does I\/O: main\/kiosk\/decide\//],
    [
      'main/kiosk/store/local-store.ts',
      "import { drainQueue } from '../sync/queue-drain.js';",
      /main\/kiosk\/store\/ may not import main\/kiosk\/sync/,
    ],
    [
      'main/host/kiosk-calls.ts',
      "import { kioskMode } from '../electron/kiosk-mode.js';",
      /main\/host\/ may not import main\/electron\/kiosk-mode/,
    ],
  ])('refuses in %s: %s', async (path, line, message) => {
    expect(await messages(path, `${line}\n`, 'layers/imports')).toEqual([expect.stringMatching(message)]);
  });

  it('allows the imports the layers name', async () => {
    expect(await messages('issuer/admin/events.ts', "import { insertEvent } from '../store/events.js';\n", 'layers/imports')).toEqual([]);
    expect(await messages('main/kiosk/store/queue.ts', "import Database from 'better-sqlite3';\n", 'layers/imports')).toEqual([]);
  });
});

describe('eslint.config.js: no import cycles', () => {
  it('refuses a circle through the files on disk (protocol/index.ts re-exports protocol/verdict.ts)', async () => {
    expect(await messages('protocol/verdict.ts', "export { GATE_DIRECTIONS } from './index.js';\n", 'layers/no-cycles')).toEqual([
      expect.stringMatching(/^Import cycle: protocol\/verdict\.ts → protocol\/index\.ts → protocol\/verdict\.ts\./),
    ]);
  });

  it('allows an import that leads nowhere back', async () => {
    expect(await messages('protocol/verdict.ts', "export { GATE_DIRECTIONS } from './admission-modes.js';\n", 'layers/no-cycles')).toEqual(
      [],
    );
  });
});
