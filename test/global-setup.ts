/**
 * Vitest globalSetup: builds the project once (`npm run build`: tsc into dist/,
 * the renderer into renderer/dist/, the admin dashboard into dist/dashboard/),
 * so integration and end-to-end tests run the built programs
 * (dist/issuer/cli.js, the built screens) exactly as users run them, and
 * `npx vitest run` works on its own.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function runBuildStep(what: string, script: string, args: string[]): void {
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules', ...script.split('/')), ...args], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    const output = `${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}` || String(error);
    throw new Error(`${what} failed, so the built programs cannot be tested:\n${output}`);
  }
}

export default function setup(): void {
  runBuildStep('the TypeScript build', 'typescript/bin/tsc', ['-p', 'tsconfig.json']);
  runBuildStep('the renderer build', 'vite/bin/vite.js', ['build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']);
  runBuildStep('the admin dashboard build', 'vite/bin/vite.js', ['build', '--config', 'dashboard/vite.config.ts', '--logLevel', 'warn']);
}
