// The layer rule (lint/layers.js) refuses the imports docs/architecture.md forbids, and allows the ones it names.
// Each refused import has its own test with a file that breaks the rule (docs/architecture.md "Tools that keep the layers").
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memorySource } from '../../../lint/import-cycles.js';
import { IO_PACKAGES, layerOf, layerViolation, layersPlugin } from '../../../lint/layers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The `layers/imports` messages ESLint gives for `text` as the file at `path` (repository-relative), all in memory. */
function lintImports(path: string, text: string): string[] {
  const linter = new Linter({ cwd: ROOT });
  const config = {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { layers: layersPlugin(memorySource({})) },
    rules: { 'layers/imports': 'error' as const },
  };
  return linter.verify(text, [config], { filename: `${ROOT}${path}` }).map(({ message }) => message);
}

describe('layers: what each folder may import', () => {
  it('keeps protocol/ pure: no Node module, nothing outside itself', () => {
    expect(layerViolation('protocol/verdict.ts', 'node:fs')).toMatch(/protocol\/ imports no Node module/);
    expect(layerViolation('protocol/verdict.ts', 'crypto')).toMatch(/no Node module/);
    expect(layerViolation('protocol/verdict.ts', '../issuer/errors.js')).toMatch(/protocol\/ may not import issuer\/errors/);
    expect(layerViolation('protocol/verdict.ts', './ticket-code.js')).toBeNull();
    expect(layerViolation('protocol/ed25519.ts', '@noble/ed25519')).toBeNull();
  });

  it('lets only main/electron/ import electron', () => {
    expect(layerViolation('main/electron/main.ts', 'electron')).toBeNull();
    expect(layerViolation('main/host/kiosk-runtime.ts', 'electron')).toMatch(/Only main\/electron\/ imports electron/);
    expect(layerViolation('main/web-host/server.ts', 'electron')).toMatch(/Only main\/electron\//);
    expect(layerViolation('renderer/app.ts', 'electron')).toMatch(/Only main\/electron\//);
  });

  it('keeps the host-neutral runtime and the kiosk core free of either host', () => {
    expect(layerViolation('main/host/kiosk-runtime.ts', '../electron/security.js')).toMatch(
      /main\/host\/ may not import main\/electron\/security/,
    );
    expect(layerViolation('main/host/kiosk-runtime.ts', '../web-host/server.js')).toMatch(/may not import main\/web-host/);
    expect(layerViolation('main/kiosk/kiosk-core.ts', '../host/kiosk-runtime.js')).toMatch(/main\/kiosk\/ may not import main\/host/);
    expect(layerViolation('main/web-host/server.ts', '../host/kiosk-runtime.js')).toBeNull();
    expect(layerViolation('main/web-host/server.ts', '../electron/security.js')).toMatch(/main\/web-host\/ may not import main\/electron/);
  });

  it('keeps the browser pages to protocol/ and their own types', () => {
    expect(layerViolation('renderer/app.ts', '../protocol/verdict.js')).toBeNull();
    expect(layerViolation('renderer/app.ts', '../main/kiosk/kiosk-core.js')).toMatch(/renderer\/ may not import main\/kiosk\/kiosk-core/);
    expect(layerViolation('renderer/app.ts', 'node:fs')).toMatch(/renderer\/ imports no Node module/);
    expect(layerViolation('dashboard/api.ts', '../issuer/store/database.js')).toMatch(/dashboard\/ may not import issuer\/store\/database/);
  });

  it('keeps the CLI out of the issuer service and routes', () => {
    expect(layerViolation('issuer/services/check-in.ts', '../cli/output.js')).toMatch(
      /issuer\/services\/ may not import issuer\/cli\/output: the service never imports the CLI/,
    );
    expect(layerViolation('issuer/routes/check-in.ts', '../cli/main.js')).toMatch(/the routes never import the CLI/);
    expect(layerViolation('issuer/services/check-in.ts', '../store/checkins.js')).toBeNull();
    expect(layerViolation('issuer/app.ts', '../main/kiosk/kiosk-core.js')).toMatch(/issuer\/ may not import main\/kiosk/);
  });

  it('keeps tests off bench/ and unit tests off files, sockets, processes and the keyring', () => {
    expect(layerViolation('test/integration/issuer/check-in.test.ts', '../../../bench/fixtures.js')).toMatch(/tests never import bench\//);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'node:fs')).toMatch(/a unit test touches no socket, file, process or keyring/);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'better-sqlite3')).toMatch(/a unit test touches no/);
    expect(layerViolation('test/unit/kiosk/backoff.test.ts', 'keytar')).toMatch(/a unit test touches no/);
    expect(layerViolation('test/integration/kiosk/local-store.test.ts', 'node:fs')).toBeNull();
    expect(layerViolation('bench/soak-bench.ts', '../test/support/ports.js')).toBeNull();
  });

  it('finds the most specific layer for a file', () => {
    expect(layerOf('issuer/services/check-in.ts').layer).toBe('issuer/services/');
    expect(layerOf('issuer/app.ts').layer).toBe('issuer/');
    expect(layerOf('renderer/vite.config.ts').node).toBe(true);
    expect(layerOf('scripts/demo.mjs').mayImport).toBeNull();
  });

  it('does not make every file in main/electron/ import electron (an Electron-only helper may be plain code)', () => {
    expect(layerOf('main/electron/kiosk-mode.ts').electron).toBe(true);
    expect(
      lintImports('main/electron/kiosk-mode.ts', "import { verify } from '../../protocol/verdict.js';\nexport const x = verify;"),
    ).toEqual([]);
  });
});

describe('layers: the issuer imports downwards only', () => {
  it('refuses issuer/services importing issuer/admin', () => {
    expect(layerViolation('issuer/services/dashboard.ts', '../admin/issuance.js')).toMatch(
      /issuer\/services\/ may not import issuer\/admin\/issuance: the service never imports the CLI, the routes, admin or transfer/,
    );
  });

  it('refuses issuer/services importing the routes, the CLI or transfer', () => {
    expect(layerViolation('issuer/services/check-in.ts', '../routes/check-in.js')).toMatch(
      /issuer\/services\/ may not import issuer\/routes/,
    );
    expect(layerViolation('issuer/services/check-in.ts', '../cli/output.js')).toMatch(
      /issuer\/services\/ may not import issuer\/cli\/output/,
    );
    expect(layerViolation('issuer/services/check-in.ts', '../cli.js')).toMatch(/issuer\/services\/ may not import issuer\/cli:/);
    expect(layerViolation('issuer/services/report.ts', '../transfer/transfer-store.js')).toMatch(
      /issuer\/services\/ may not import issuer\/transfer/,
    );
  });

  it('refuses issuer/store importing issuer/services', () => {
    expect(layerViolation('issuer/store/checkins.ts', '../services/check-in.js')).toMatch(
      /issuer\/store\/ may not import issuer\/services\/check-in: the store is the bottom of the issuer/,
    );
  });

  it('refuses issuer/store importing admin, transfer, the routes or the CLI', () => {
    expect(layerViolation('issuer/store/events.ts', '../admin/events.js')).toMatch(/issuer\/store\/ may not import issuer\/admin/);
    expect(layerViolation('issuer/store/events.ts', '../transfer/transfer-file.js')).toMatch(
      /issuer\/store\/ may not import issuer\/transfer/,
    );
    expect(layerViolation('issuer/store/events.ts', '../routes/health.js')).toMatch(/issuer\/store\/ may not import issuer\/routes/);
    expect(layerViolation('issuer/store/events.ts', '../cli/output.js')).toMatch(/issuer\/store\/ may not import issuer\/cli/);
  });

  it('refuses issuer/admin and issuer/transfer importing the services (siblings over the store)', () => {
    expect(layerViolation('issuer/admin/events.ts', '../services/check-in-rules.js')).toMatch(
      /issuer\/admin\/ may not import issuer\/services\/check-in-rules: the admin operations are a library/,
    );
    expect(layerViolation('issuer/transfer/import.ts', '../services/door.js')).toMatch(
      /issuer\/transfer\/ may not import issuer\/services\/door/,
    );
  });

  it('refuses issuer/admin importing the routes or the CLI', () => {
    expect(layerViolation('issuer/admin/events.ts', '../routes/admin/api.js')).toMatch(
      /issuer\/admin\/ may not import issuer\/routes\/admin\/api: the admin operations are a library/,
    );
    expect(layerViolation('issuer/admin/events.ts', '../cli/output.js')).toMatch(/issuer\/admin\/ may not import issuer\/cli/);
    expect(layerViolation('issuer/admin/events.ts', '../cli.js')).toMatch(/issuer\/admin\/ may not import issuer\/cli:/);
  });

  it('refuses issuer/transfer importing the routes or the CLI', () => {
    expect(layerViolation('issuer/transfer/transfer-import.ts', '../routes/admin/api.js')).toMatch(
      /issuer\/transfer\/ may not import issuer\/routes/,
    );
    expect(layerViolation('issuer/transfer/transfer-import.ts', '../cli/output.js')).toMatch(
      /issuer\/transfer\/ may not import issuer\/cli/,
    );
  });

  it('allows every import downwards', () => {
    expect(layerViolation('issuer/services/check-in.ts', '../store/checkins.js')).toBeNull();
    expect(layerViolation('issuer/services/check-in.ts', '../error-catalogue.js')).toBeNull();
    expect(layerViolation('issuer/admin/ticket-export.ts', '../transfer/compact-set.js')).toBeNull();
    expect(layerViolation('issuer/transfer/transfer-import.ts', '../admin/issuer-context.js')).toBeNull();
    expect(layerViolation('issuer/transfer/transfer-import.ts', '../store/database.js')).toBeNull();
    expect(layerViolation('issuer/routes/admin/api.ts', '../../admin/issuance.js')).toBeNull();
    expect(layerViolation('issuer/cli/ticket-commands.ts', '../admin/issuance.js')).toBeNull();
    expect(layerViolation('issuer/cli/transfer-commands.ts', '../transfer/transfer-export.js')).toBeNull();
    expect(layerViolation('issuer/cli.ts', './cli/output.js')).toBeNull();
  });
});

describe('layers: the pure layers refuse the I/O packages', () => {
  it('refuses protocol/ importing better-sqlite3', () => {
    expect(layerViolation('protocol/verdict.ts', 'better-sqlite3')).toMatch(/better-sqlite3 does I\/O: protocol\/ imports no I\/O package/);
  });

  it('refuses renderer/ importing keytar', () => {
    expect(layerViolation('renderer/app.ts', 'keytar')).toMatch(/keytar does I\/O: renderer\/ imports no I\/O package/);
  });

  it('refuses dashboard/ importing pg, fastify or a @fastify/ plugin', () => {
    expect(layerViolation('dashboard/api.ts', 'pg')).toMatch(/pg does I\/O: dashboard\/ imports no I\/O package/);
    expect(layerViolation('dashboard/api.ts', 'fastify')).toMatch(/dashboard\/ imports no I\/O package/);
    expect(layerViolation('dashboard/api.ts', '@fastify/rate-limit')).toMatch(/dashboard\/ imports no I\/O package/);
  });

  it('refuses a package by its name whatever the subpath, and every package of the list', () => {
    expect(layerViolation('protocol/verdict.ts', 'pg/lib/client.js')).toMatch(/does I\/O/);
    for (const name of IO_PACKAGES) {
      const source = name.replace('/*', '/any');
      expect(layerViolation('protocol/verdict.ts', source), source).not.toBeNull();
      expect(layerViolation('main/kiosk/decide/lanes.ts', source), source).not.toBeNull();
    }
  });

  it('refuses the package even for its types only', () => {
    expect(lintImports('renderer/app.ts', "import type { Logger } from 'pino';\nexport type L = Logger;")).toEqual([
      expect.stringMatching(/pino does I\/O: renderer\/ imports no I\/O package/),
    ]);
  });

  it('allows the pure packages the layers use', () => {
    expect(layerViolation('protocol/ed25519.ts', '@noble/ed25519')).toBeNull();
    expect(layerViolation('protocol/audit-chain.ts', '@noble/hashes/sha2.js')).toBeNull();
    expect(layerViolation('dashboard/arrivals.ts', 'uplot')).toBeNull();
    expect(layerViolation('dashboard/arrivals.ts', 'd3-scale')).toBeNull();
    expect(layerViolation('issuer/store/postgres-database.ts', 'pg')).toBeNull();
    expect(layerViolation('dashboard/vite.config.ts', 'vite')).toBeNull();
  });
});

describe("layers: the kiosk's decisions are pure", () => {
  it('refuses main/kiosk/decide importing node:fs', () => {
    expect(layerViolation('main/kiosk/decide/door-rules.ts', 'node:fs')).toMatch(/main\/kiosk\/decide\/ imports no Node module/);
    expect(layerViolation('main/kiosk/decide/door-rules.ts', 'crypto')).toMatch(/imports no Node module/);
  });

  it('refuses main/kiosk/decide importing better-sqlite3', () => {
    expect(layerViolation('main/kiosk/decide/door-rules.ts', 'better-sqlite3')).toMatch(
      /better-sqlite3 does I\/O: main\/kiosk\/decide\/ imports no I\/O package/,
    );
    expect(lintImports('main/kiosk/decide/door-rules.ts', "export type Db = typeof import('better-sqlite3');")).toEqual([
      expect.stringMatching(/better-sqlite3 does I\/O/),
    ]);
  });

  it('refuses main/kiosk/decide importing store/, sync/, the scanners or the core', () => {
    expect(layerViolation('main/kiosk/decide/door-operations.ts', '../store/local-store.js', { typeOnly: true })).toMatch(
      /main\/kiosk\/decide\/ may not import main\/kiosk\/store\/local-store: the kiosk's decisions are pure/,
    );
    expect(layerViolation('main/kiosk/decide/door-operations.ts', '../sync/issuer-client.js')).toMatch(
      /main\/kiosk\/decide\/ may not import main\/kiosk\/sync\/issuer-client/,
    );
    expect(layerViolation('main/kiosk/decide/lanes.ts', '../scanner/scanner-manager.js', { typeOnly: true })).toMatch(
      /may not import main\/kiosk\/scanner\/scanner-manager/,
    );
    expect(layerViolation('main/kiosk/decide/lanes.ts', '../kiosk-core.js')).toMatch(/may not import main\/kiosk\/kiosk-core/);
  });

  it('lets main/kiosk/decide read the bridge types, the kiosk API and the scan event for their types only', () => {
    const bridge = '../../../renderer/kiosk-bridge-types.js';
    expect(layerViolation('main/kiosk/decide/lanes.ts', bridge, { typeOnly: true })).toBeNull();
    expect(layerViolation('main/kiosk/decide/lanes.ts', bridge)).toMatch(
      /main\/kiosk\/decide\/ imports renderer\/kiosk-bridge-types for its types only \(`import type`\)/,
    );
    expect(layerViolation('main/kiosk/decide/lanes.ts', '../scanner/scan-event.js')).toMatch(/for its types only/);
    expect(lintImports('main/kiosk/decide/lanes.ts', `import { type LanesState } from '${bridge}';\nexport type L = LanesState;`)).toEqual(
      [],
    );
    expect(lintImports('main/kiosk/decide/lanes.ts', "export type * from '../kiosk-api.js';")).toEqual([]);
    expect(
      lintImports(
        'main/kiosk/decide/lanes.ts',
        "import { decodeProblem } from '../scanner/scan-event.js';\nexport const d = decodeProblem;",
      ),
    ).toEqual([expect.stringMatching(/imports main\/kiosk\/scanner\/scan-event for its types only/)]);
  });

  it('allows protocol/ and its own folder', () => {
    expect(layerViolation('main/kiosk/decide/lanes.ts', '../../../protocol/index.js')).toBeNull();
    expect(layerViolation('main/kiosk/decide/door-operations.ts', './backoff.js')).toBeNull();
  });
});

describe("layers: the kiosk's store, sync and scanners", () => {
  it('refuses main/kiosk/store importing sync/, the scanners or the core', () => {
    expect(layerViolation('main/kiosk/store/queue.ts', '../sync/issuer-client.js', { typeOnly: true })).toMatch(
      /main\/kiosk\/store\/ may not import main\/kiosk\/sync\/issuer-client: the kiosk's storage/,
    );
    expect(layerViolation('main/kiosk/store/queue.ts', '../scanner/scan-event.js')).toMatch(
      /main\/kiosk\/store\/ may not import main\/kiosk\/scanner/,
    );
    expect(layerViolation('main/kiosk/store/queue.ts', '../kiosk-core.js')).toMatch(
      /main\/kiosk\/store\/ may not import main\/kiosk\/kiosk-core/,
    );
  });

  it('refuses main/kiosk/sync importing the scanners or the core', () => {
    expect(layerViolation('main/kiosk/sync/queue-drain.ts', '../scanner/index.js')).toMatch(
      /main\/kiosk\/sync\/ may not import main\/kiosk\/scanner/,
    );
    expect(layerViolation('main/kiosk/sync/queue-drain.ts', '../staff-access.js')).toMatch(
      /main\/kiosk\/sync\/ may not import main\/kiosk\/staff-access/,
    );
  });

  it('refuses main/kiosk/scanner importing the door: decide/, store/, sync/, the core', () => {
    expect(layerViolation('main/kiosk/scanner/scanner-manager.ts', '../decide/lanes.js')).toMatch(
      /main\/kiosk\/scanner\/ may not import main\/kiosk\/decide\/lanes/,
    );
    expect(layerViolation('main/kiosk/scanner/scanner-manager.ts', '../store/local-store.js')).toMatch(/may not import main\/kiosk\/store/);
    expect(layerViolation('main/kiosk/scanner/scanner-manager.ts', '../kiosk-core.js')).toMatch(/may not import main\/kiosk\/kiosk-core/);
  });

  it('keeps each I/O package in its folder: SQLite and the keyring in store/, undici in sync/, node-hid in scanner/, none in the core', () => {
    expect(layerViolation('main/kiosk/store/local-store.ts', 'better-sqlite3')).toBeNull();
    expect(layerViolation('main/kiosk/store/api-key-store.ts', 'keytar')).toBeNull();
    expect(layerViolation('main/kiosk/sync/tls-pinning.ts', 'undici')).toBeNull();
    expect(layerViolation('main/kiosk/scanner/node-hid-boundary.ts', 'node-hid')).toBeNull();
    expect(layerViolation('main/kiosk/sync/queue-drain.ts', 'better-sqlite3')).toMatch(
      /better-sqlite3 is not an I\/O package of main\/kiosk\/sync\/ \(its own are undici\)/,
    );
    expect(layerViolation('main/kiosk/store/queue.ts', 'undici')).toMatch(/undici is not an I\/O package of main\/kiosk\/store\//);
    expect(layerViolation('main/kiosk/kiosk-core.ts', 'better-sqlite3')).toMatch(
      /better-sqlite3 is not an I\/O package of main\/kiosk\/ \(it has none of its own\)/,
    );
  });

  it('allows the core to wire every kiosk layer, and each layer the ones below it', () => {
    expect(layerViolation('main/kiosk/kiosk-core.ts', './decide/lanes.js')).toBeNull();
    expect(layerViolation('main/kiosk/kiosk-core.ts', './store/local-store.js')).toBeNull();
    expect(layerViolation('main/kiosk/kiosk-core.ts', './sync/issuer-client.js')).toBeNull();
    expect(layerViolation('main/kiosk/kiosk-core.ts', './scanner/scan-event.js')).toBeNull();
    expect(layerViolation('main/kiosk/sync/queue-drain.ts', '../store/local-store.js')).toBeNull();
    expect(layerViolation('main/kiosk/sync/queue-drain.ts', '../decide/backoff.js')).toBeNull();
    expect(layerViolation('main/kiosk/store/local-store.ts', '../decide/calibration.js')).toBeNull();
    expect(layerViolation('main/kiosk/store/local-store.ts', 'node:fs')).toBeNull();
  });
});

describe('layers: main/host/ runs in both hosts and imports neither', () => {
  it('refuses main/host importing main/electron', () => {
    expect(
      lintImports('main/host/kiosk-runtime.ts', "import { kioskMode } from '../electron/kiosk-mode.js';\nexport const k = kioskMode;"),
    ).toEqual([expect.stringMatching(/main\/host\/ may not import main\/electron\/kiosk-mode: the host-neutral runtime/)]);
  });

  it('refuses main/host importing main/web-host', () => {
    expect(layerViolation('main/host/kiosk-calls.ts', '../web-host/server.js')).toMatch(
      /main\/host\/ may not import main\/web-host\/server/,
    );
  });
});
