// The layers of docs/architecture.md as one lint rule: for every import, the
// folder of the importing file decides what it may import. One table, read
// top to bottom; the first row whose folder holds the file applies. The second
// rule, `layers/no-cycles` (lint/import-cycles.js), refuses circles of imports.
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileSystemSource, importCycleRule } from './import-cycles.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Node's built-in modules, as imported with or without `node:`. */
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/**
 * The packages that do I/O (docs/architecture.md "Folders"): a database, the keyring, a device, the
 * network or a server, files (PDF, fonts, PNG, QR images), logs and the terminal, Electron, a browser,
 * a build. The pure layers (protocol/, renderer/, dashboard/, main/kiosk/decide/) refuse every one,
 * `import type` included. `@scope/*` covers a whole scope.
 */
export const IO_PACKAGES = [
  'better-sqlite3',
  'pg',
  'keytar',
  'node-hid',
  'undici',
  'fastify',
  '@fastify/*',
  'selfsigned',
  'pdfkit',
  'fontkit',
  'pngjs',
  'qrcode',
  'pino',
  'cli-progress',
  'commander',
  'electron',
  '@electron/*',
  'electron-builder',
  'playwright-core',
  'playwright',
  '@playwright/*',
  'vite',
];

/** What a unit test may not touch: files, sockets, processes, the keyring, a browser (docs/architecture.md "Tests"). */
const IO_MODULES = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process', 'worker_threads'].flatMap(
  (name) => [name, `node:${name}`],
);
const UNIT_TEST_IO_PACKAGES = ['better-sqlite3', 'pg', 'keytar', 'undici', 'node-hid', 'playwright-core', '@playwright/*', 'fastify'];

/** The top of the issuer: nothing below imports the CLI (issuer/cli/ and the `ticket-issuer` bin, issuer/cli.ts). */
const ISSUER_CLI = ['issuer/cli/', 'issuer/cli'];

/** The kiosk's pure decisions may read these for their types, and only for their types (no code of theirs runs). */
const KIOSK_TYPES = ['renderer/kiosk-bridge-types', 'main/kiosk/kiosk-api', 'main/kiosk/scanner/scan-event'];

/**
 * Each layer: the folder (or file) it covers, the project folders/files it may import,
 * whether Node's built-ins are allowed, and which packages are refused.
 * A `mayImport` entry ending in `/` is a folder; anything else is one file (without extension).
 * `notFrom`: imports refused even though `mayImport` covers them. `typeOnly`: files it may
 * import with `import type` only. `refusedPackages`: entries of IO_PACKAGES or others, by package
 * name (`pg/lib/x` is `pg`). `ioPackages`: the only ones of IO_PACKAGES this folder may use.
 */
export const LAYERS = [
  {
    layer: 'protocol/',
    mayImport: ['protocol/'],
    node: false,
    refusedPackages: IO_PACKAGES,
    why: 'protocol/ is pure and runs anywhere: nothing outside itself, no I/O',
  },
  { layer: 'renderer/vite.config', mayImport: [], node: true },
  { layer: 'renderer/dev/screenshots', mayImport: null, why: 'a Node script that photographs the dev page' },
  { layer: 'dashboard/vite.config', mayImport: [], node: true },
  {
    layer: 'renderer/',
    mayImport: ['renderer/', 'protocol/'],
    node: false,
    refusedPackages: IO_PACKAGES,
    why: 'the kiosk page imports only protocol/ and its bridge types, and does no I/O of its own',
  },
  {
    layer: 'dashboard/',
    mayImport: ['dashboard/', 'protocol/', 'issuer/dashboard-api', 'renderer/messages/translate'],
    node: false,
    refusedPackages: IO_PACKAGES,
    why: "the admin page imports only protocol/, its API types and the catalogues' generic translator, and does no I/O of its own",
  },
  {
    layer: 'issuer/store/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/services/', 'issuer/admin/', 'issuer/transfer/', 'issuer/routes/', ...ISSUER_CLI],
    why: 'the store is the bottom of the issuer: it never imports the services, admin, transfer, routes or CLI that use it',
  },
  {
    layer: 'issuer/services/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/admin/', 'issuer/transfer/', 'issuer/routes/', ...ISSUER_CLI],
    why: 'the service never imports the CLI, the routes, admin or transfer: they use the services, never the other way',
  },
  {
    layer: 'issuer/transfer/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/services/', 'issuer/routes/', ...ISSUER_CLI],
    why: "export and import of a whole issuer are admin operations: they use the store and admin's helpers, never the services, the routes or the CLI",
  },
  {
    layer: 'issuer/admin/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/services/', 'issuer/routes/', ...ISSUER_CLI],
    why: 'the admin operations are a library the CLI and the routes call: they import neither, nor the services (their sibling over the store)',
  },
  {
    layer: 'issuer/routes/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ISSUER_CLI,
    why: 'the routes never import the CLI',
  },
  { layer: 'issuer/cli/', mayImport: ['issuer/', 'protocol/'], why: 'the CLI is the top of the issuer: it may use every layer below it' },
  { layer: 'issuer/', mayImport: ['issuer/', 'protocol/'], why: 'the issuer stands alone (it never imports the kiosk)' },
  {
    layer: 'main/kiosk/decide/',
    mayImport: ['main/kiosk/decide/', 'protocol/'],
    typeOnly: KIOSK_TYPES,
    node: false,
    refusedPackages: IO_PACKAGES,
    why: "the kiosk's decisions are pure: protocol/ and the bridge types only; no Node module, no I/O, nothing from store/, sync/ or the scanners",
  },
  {
    layer: 'main/kiosk/store/',
    mayImport: ['main/kiosk/store/', 'main/kiosk/decide/', 'main/kiosk/kiosk-api', 'protocol/', 'renderer/kiosk-bridge-types'],
    ioPackages: ['better-sqlite3', 'keytar'],
    why: "the kiosk's storage (SQLite and the keyring) sits under sync/ and the core: it never imports them, nor the scanners",
  },
  {
    layer: 'main/kiosk/sync/',
    mayImport: [
      'main/kiosk/sync/',
      'main/kiosk/store/',
      'main/kiosk/decide/',
      'main/kiosk/kiosk-api',
      'protocol/',
      'renderer/kiosk-bridge-types',
    ],
    ioPackages: ['undici'],
    why: 'talking to the issuer and the peers uses the store and the decisions, never the scanners or the core',
  },
  {
    layer: 'main/kiosk/scanner/',
    mayImport: ['main/kiosk/scanner/', 'protocol/', 'renderer/kiosk-bridge-types'],
    ioPackages: ['node-hid'],
    why: 'the HID scanners turn reports into scans and know nothing of the door',
  },
  {
    layer: 'main/kiosk/',
    mayImport: ['main/kiosk/', 'protocol/', 'renderer/kiosk-bridge-types'],
    ioPackages: [],
    why: 'the kiosk core wires decide/, store/, sync/ and scanner/ (their I/O packages stay in them) and knows neither host',
  },
  {
    layer: 'main/onsite-issuer/',
    mayImport: ['main/onsite-issuer/', 'protocol/', 'issuer/onsite'],
    why: 'the on-site issuer uses the issuer through its one entry point',
  },
  {
    layer: 'main/host/',
    mayImport: [
      'main/host/',
      'main/kiosk/',
      'main/onsite-issuer/',
      'protocol/',
      'renderer/kiosk-bridge-types',
      'renderer/onsite-issuer-bridge-types',
    ],
    why: 'the host-neutral runtime is shared by both hosts and imports neither',
  },
  {
    layer: 'main/electron/',
    mayImport: [
      'main/electron/',
      'main/host/',
      'main/kiosk/',
      'main/onsite-issuer/',
      'protocol/',
      'renderer/kiosk-bridge-types',
      'renderer/onsite-issuer-bridge-types',
    ],
    electron: true,
    why: 'the Electron shell builds on the host-neutral runtime',
  },
  {
    layer: 'main/web-host/',
    mayImport: ['main/web-host/', 'main/host/', 'main/kiosk/', 'protocol/', 'renderer/kiosk-bridge-types'],
    why: 'the browser host builds on the host-neutral runtime',
  },
  {
    layer: 'main/',
    mayImport: ['main/', 'protocol/'],
    notFrom: ['main/electron/'],
    why: 'the kiosk command lines start either host without Electron',
  },
  {
    layer: 'bench/',
    mayImport: ['bench/', 'test/support/', 'protocol/', 'issuer/', 'main/'],
    notFrom: ['main/electron/'],
    why: 'benchmarks measure the real parts, never the Electron shell',
  },
  {
    layer: 'test/unit/',
    mayImport: ['test/unit/', 'test/support/unit/', 'test/vectors/', 'protocol/', 'issuer/', 'main/', 'renderer/', 'dashboard/', 'lint/'],
    refusedModules: [...IO_MODULES, ...UNIT_TEST_IO_PACKAGES],
    why: 'a unit test touches no socket, file, process or keyring: that is an integration test',
  },
  {
    layer: 'test/',
    mayImport: ['test/', 'protocol/', 'issuer/', 'main/', 'renderer/', 'dashboard/', 'scripts/', 'lint/'],
    why: 'tests never import bench/: shared fixtures live in test/support/',
  },
  { layer: '', mayImport: null },
];

const startsWithFolderOrIs = (path, entry) =>
  entry.endsWith('/') ? path.startsWith(entry) : path === entry || path.startsWith(`${entry}.`);
const withoutExtension = (path) => path.replace(/\.(c|m)?(t|j)sx?$|\.json$/, '');

/** The package a bare specifier names: `pg/lib/client` is `pg`, `@fastify/rate-limit/x` is `@fastify/rate-limit`. */
const packageOf = (source) =>
  source
    .split('/')
    .slice(0, source.startsWith('@') ? 2 : 1)
    .join('/');
const listed = (list, source) =>
  list?.some((entry) => {
    const name = packageOf(source);
    return entry.endsWith('/*') ? name.startsWith(entry.slice(0, -1)) : entry === name || entry === source;
  }) ?? false;
const refusedIoPackage = (row, source) => row.ioPackages !== undefined && listed(IO_PACKAGES, source) && !listed(row.ioPackages, source);

/** The row of LAYERS for a file given relative to the repository root. */
export function layerOf(file) {
  return LAYERS.find(({ layer }) => layer === '' || startsWithFolderOrIs(withoutExtension(file), layer));
}

/**
 * Why `source`, imported from `file` (both repository-relative for project files), breaks the layers;
 * null when it does not. `typeOnly`: the import brings types only (`import type`, `export type … from`).
 */
export function layerViolation(file, source, { typeOnly = false } = {}) {
  const row = layerOf(file);
  if (packageOf(source) === 'electron') {
    return row.electron ? null : 'Only main/electron/ imports electron: put host-neutral code in main/host/.';
  }
  if (!source.startsWith('.')) {
    if (NODE_BUILTINS.has(source) && row.node === false) return `${row.layer} imports no Node module (${row.why}).`;
    if (listed(row.refusedModules, source)) return `${source}: ${row.why} (move it to test/integration/).`;
    if (listed(row.refusedPackages, source)) return `${source} does I/O: ${row.layer} imports no I/O package (${row.why}).`;
    if (refusedIoPackage(row, source)) {
      const own = row.ioPackages.length > 0 ? `its own are ${row.ioPackages.join(', ')}` : 'it has none of its own';
      return `${source} is not an I/O package of ${row.layer} (${own}): ${row.why}.`;
    }
    return null;
  }
  const target = withoutExtension(
    relative(ROOT, resolve(ROOT, dirname(file), source))
      .split('\\')
      .join('/'),
  );
  if (row.notFrom?.some((entry) => startsWithFolderOrIs(target, entry))) return `${row.layer} may not import ${target}: ${row.why}.`;
  if (row.mayImport === null || row.mayImport.some((entry) => startsWithFolderOrIs(target, entry))) return null;
  if (row.typeOnly?.some((entry) => startsWithFolderOrIs(target, entry))) {
    return typeOnly ? null : `${row.layer} imports ${target} for its types only (\`import type\`): ${row.why}.`;
  }
  if (target.startsWith('bench/')) return `Only benchmarks import bench/: ${row.why ?? 'shared fixtures live in test/support/'}.`;
  const may = [...row.mayImport, ...(row.typeOnly ?? []).map((entry) => `${entry} (types only)`)];
  return `${row.layer} may not import ${target}: ${row.why}. It may import ${may.join(', ')} (docs/architecture.md "Folders").`;
}

/** Whether an import or re-export brings types only: `import type`, `export type`, or every name marked `type`. */
function typeOnlyImport(node) {
  if (node.type === 'TSImportType') return true;
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((specifier) => specifier.importKind === 'type' || specifier.exportKind === 'type');
}

const importRule = {
  meta: { type: 'problem', docs: { description: 'Each folder imports only the layers docs/architecture.md allows' }, schema: [] },
  create(context) {
    const file = relative(ROOT, context.filename).split('\\').join('/');
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const message = layerViolation(file, source, { typeOnly: typeOnlyImport(node) });
      if (message) context.report({ node, message });
    };
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => check(node, (node.source ?? node.argument?.literal)?.value),
    };
  },
};

/** The plugin, with the cycle rule reading `source` (the working tree; tests give files in memory). */
export function layersPlugin(source = fileSystemSource) {
  return { rules: { imports: importRule, 'no-cycles': importCycleRule(source, ROOT) } };
}

export default layersPlugin();
