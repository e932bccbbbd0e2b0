/**
 * The kiosk core compiled for a child Node process (tsx is not installed):
 * the kiosk files and what they import, with the project's tsconfig, into a
 * private folder under dist/. Used by the SIGKILL tests, which run the kiosk
 * in test/integration/kiosk/fixtures/kiosk-child.mjs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../..');
const childScript = join(here, '..', 'fixtures', 'kiosk-child.mjs');

/** Compiles the kiosk core into dist/<name>-<pid>; returns the folder. */
export function compileKioskCore(name: string): string {
  const distDir = join(root, 'dist', `${name}-${process.pid}`);
  mkdirSync(distDir, { recursive: true });
  const tsconfig = join(distDir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { outDir: distDir, rootDir: root, sourceMap: false, noEmitOnError: false },
      files: ['kiosk-core.ts', 'sync/queue-drain.ts', 'store/local-store.ts', 'sync/issuer-client.ts'].map((f) =>
        join(root, 'main', 'kiosk', f),
      ),
      include: [],
    }),
  );
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], { encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}\n${tsc.stderr}`);
  return distDir;
}

export interface KioskChild {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whole lines it printed so far. */
  lines: string[];
}

/** Runs kiosk-child.mjs on the compiled core; see that file for the modes. */
export function runKioskChild(distDir: string, args: string[], children: ChildProcess[]): KioskChild {
  const child = spawn(process.execPath, [childScript, distDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on('exit', (code, signal) => {
      if (code !== 0 && signal === null) console.error(stderr);
      resolveExit({ code, signal });
    }),
  );
  return { child, exited, lines };
}
