// The layers of docs/architecture.md as one lint rule: for every import, the
// folder of the importing file decides what it may import. One table, read
// top to bottom; the first row whose folder holds the file applies.
import { builtinModules } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Node's built-in modules, as imported with or without `node:`. */
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** What a unit test may not touch: files, sockets, processes, the keyring, a browser (docs/architecture.md "Tests"). */
const IO_MODULES = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process', 'worker_threads'].flatMap(
  (name) => [name, `node:${name}`],
);
const IO_PACKAGES = ['better-sqlite3', 'keytar', 'undici', 'node-hid', 'playwright-core', 'fastify'];

/**
 * Each layer: the folder (or file) it covers, the project folders/files it may import,
 * whether Node's built-ins are allowed, and which packages are refused.
 * A `mayImport` entry ending in `/` is a folder; anything else is one file (without extension).
 */
export const LAYERS = [
  {
    layer: 'protocol/',
    mayImport: ['protocol/'],
    node: false,
    refusedPackages: ['electron'],
    why: 'protocol/ is pure and runs anywhere: nothing outside itself, no I/O',
  },
  { layer: 'renderer/vite.config', mayImport: [], node: true },
  { layer: 'renderer/dev/screenshots', mayImport: null, why: 'a Node script that photographs the dev page' },
  { layer: 'dashboard/vite.config', mayImport: [], node: true },
  {
    layer: 'renderer/',
    mayImport: ['renderer/', 'protocol/'],
    node: false,
    why: 'the kiosk page imports only protocol/ and its bridge types',
  },
  {
    layer: 'dashboard/',
    mayImport: ['dashboard/', 'protocol/', 'issuer/dashboard-api', 'renderer/messages/translate'],
    node: false,
    why: "the admin page imports only protocol/, its API types and the catalogues' generic translator",
  },
  {
    layer: 'issuer/services/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/cli/', 'issuer/cli'],
    why: 'the service never imports the CLI',
  },
  {
    layer: 'issuer/routes/',
    mayImport: ['issuer/', 'protocol/'],
    notFrom: ['issuer/cli/', 'issuer/cli'],
    why: 'the routes never import the CLI',
  },
  { layer: 'issuer/', mayImport: ['issuer/', 'protocol/'], why: 'the issuer stands alone (it never imports the kiosk)' },
  {
    layer: 'main/kiosk/',
    mayImport: ['main/kiosk/', 'protocol/', 'renderer/kiosk-bridge-types'],
    why: 'the kiosk core knows neither host',
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
    refusedModules: [...IO_MODULES, ...IO_PACKAGES],
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

/** The row of LAYERS for a file given relative to the repository root. */
export function layerOf(file) {
  return LAYERS.find(({ layer }) => layer === '' || startsWithFolderOrIs(withoutExtension(file), layer));
}

/** Why `source`, imported from `file` (both repository-relative for project files), breaks the layers; null when it does not. */
export function layerViolation(file, source) {
  const row = layerOf(file);
  if (source === 'electron') {
    return row.electron ? null : 'Only main/electron/ imports electron: put host-neutral code in main/host/.';
  }
  if (!source.startsWith('.')) {
    if (NODE_BUILTINS.has(source) && row.node === false) return `${row.layer} imports no Node module (${row.why}).`;
    if (row.refusedModules?.includes(source)) return `${source}: ${row.why} (move it to test/integration/).`;
    if (row.refusedPackages?.includes(source)) return `${source}: ${row.why}.`;
    return null;
  }
  const target = withoutExtension(
    relative(ROOT, resolve(ROOT, dirname(file), source))
      .split('\\')
      .join('/'),
  );
  if (row.notFrom?.some((entry) => startsWithFolderOrIs(target, entry))) return `${row.layer} may not import ${target}: ${row.why}.`;
  if (row.mayImport === null || row.mayImport.some((entry) => startsWithFolderOrIs(target, entry))) return null;
  if (target.startsWith('bench/')) return `Only benchmarks import bench/: ${row.why ?? 'shared fixtures live in test/support/'}.`;
  return `${row.layer} may not import ${target}: ${row.why}. It may import ${row.mayImport.join(', ')} (docs/architecture.md "Folders").`;
}

const importRule = {
  meta: { type: 'problem', docs: { description: 'Each folder imports only the layers docs/architecture.md allows' }, schema: [] },
  create(context) {
    const file = relative(ROOT, context.filename).split('\\').join('/');
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const message = layerViolation(file, source);
      if (message) context.report({ node, message });
    };
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source.value : undefined),
    };
  },
};

export default { rules: { imports: importRule } };
