/**
 * A second issuer PROCESS on the same data directory: issuer/server.ts is
 * compiled (its import graph only) into node_modules/.cache, so the child
 * resolves the project's dependencies, and started with `node`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Compiles issuer/server.ts and what it imports; returns the output folder. */
export async function compileIssuerServer(): Promise<string> {
  const outDir = path.join(repoRoot, 'node_modules', '.cache', `issuer-test-build-${process.pid}`);
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--outDir', outDir, '--rootDir', '.', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  await promisify(execFile)(
    process.execPath,
    [tsc, 'issuer/server.ts', 'issuer/database-thread.ts', ...flags, '--strict', '--skipLibCheck', '--types', 'node', '--esModuleInterop'],
    { cwd: repoRoot },
  );
  // Below node_modules no package.json scope applies: say the output is ESM.
  fs.writeFileSync(path.join(outDir, 'package.json'), '{"type":"module"}\n');
  return outDir;
}

export interface IssuerChild {
  url: string;
  process: ChildProcess;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** `scannerRpm`: the per-scanner rate limit (serve's default, 600 a minute, when not given). */
export async function startIssuerChild(buildDir: string, dataDir: string, options: { scannerRpm?: number } = {}): Promise<IssuerChild> {
  const scannerRpm = options.scannerRpm === undefined ? '' : `scannerRpm: ${JSON.stringify(options.scannerRpm)}, `;
  const script = `
    import { startServer } from ${JSON.stringify(path.join(buildDir, 'issuer', 'server.js'))};
    import { createLogger } from ${JSON.stringify(path.join(buildDir, 'issuer', 'logging.js'))};
    const server = await startServer({ dataDir: process.argv[1], host: '127.0.0.1', port: 0, plainHttp: true, ${scannerRpm}logger: createLogger({ level: 'silent' }) });
    console.log(JSON.stringify({ url: server.url }));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`the issuer child exited early with ${code}`)));
  });
  return { url, process: child, exited };
}

export function removeBuild(buildDir: string): void {
  fs.rmSync(buildDir, { recursive: true, force: true });
}
