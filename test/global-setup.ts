/**
 * Vitest globalSetup: builds the project once (`tsc -p tsconfig.json`), so
 * integration tests can run the built programs (dist/issuer/cli.js) as child
 * processes, exactly as users run them.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const output = (error as { stdout?: Buffer }).stdout?.toString() ?? String(error);
    throw new Error(`the build failed, so the built programs cannot be tested:\n${output}`);
  }
}
