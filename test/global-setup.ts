/**
 * The global setup of both test runners (vitest.config.ts, playwright.config.ts):
 * builds the project once with the package's own build script (`npm run build`:
 * tsc into dist/, the kiosk page into dist/kiosk-page/, the admin dashboard into
 * dist/dashboard/), so integration and end-to-end tests run the built programs
 * (dist/issuer/cli.js, the built screens) exactly as users run them, and
 * `npx vitest run` and `npx playwright test` each work on their own.
 *
 * `npm test` (scripts/test-suite.mjs) builds once itself before starting both
 * runners and says so with TESTS_BUILT_ENV, so neither builds again.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Set to '1' by whoever has just run `npm run build` for this test run (scripts/test-suite.mjs). */
export const TESTS_BUILT_ENV = 'TICKET_TESTS_BUILT';

export default function setup(): void {
  if (process.env[TESTS_BUILT_ENV] === '1') return;
  // Under npm or npx, npm_execpath is npm's own script: run it with this Node. Otherwise npm from PATH.
  const npmScript = process.env.npm_execpath;
  const [command, args] = npmScript?.endsWith('.js') ? [process.execPath, [npmScript, 'run', 'build']] : ['npm', ['run', 'build']];
  try {
    execFileSync(command, args, { cwd: root, stdio: 'pipe', shell: process.platform === 'win32' && command === 'npm' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    const output = `${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}` || String(error);
    throw new Error(`npm run build failed, so the built programs cannot be tested:\n${output}`, { cause: error });
  }
}
