/**
 * `npm start`: launches the Electron shell when the Electron binary is here,
 * otherwise says so and points to the browser host.
 *
 * Why not require('electron'): since 45.4 the electron package downloads its
 * binary on first require (node_modules/electron/index.js runs install.js with
 * spawnSync and no timeout), which hangs or fails on a machine without
 * internet. So this reads the same files index.js reads (path.txt, dist/,
 * ELECTRON_OVERRIDE_DIST_PATH) without ever starting a download, then runs
 * `electron --version` with a short timeout to be sure the binary starts.
 *
 * Electron loads the kiosk's native modules (better-sqlite3, keytar, node-hid)
 * with its own ABI: after installing the binary, rebuild them once with
 * `npx electron-rebuild` (electron-builder does this when packaging).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './host/app-paths.js';

export type ElectronBinary = { available: true; path: string } | { available: false; reason: string };

const VERSION_CHECK_TIMEOUT_MS = 10_000;

/** Where the binary would be, per node_modules/electron/index.js, without downloading anything. */
export function locateElectronBinary(
  electronPackageDir: string | null = electronPackageDirectory(),
  env: NodeJS.ProcessEnv = process.env,
): ElectronBinary {
  if (!electronPackageDir) return { available: false, reason: 'the electron package is not installed' };
  const pathFile = join(electronPackageDir, 'path.txt');
  if (!existsSync(pathFile)) {
    return {
      available: false,
      reason: 'its binary was never downloaded: electron fetches it on first launch, which needs internet access',
    };
  }
  const executable = readFileSync(pathFile, 'utf8').trim();
  const override = env['ELECTRON_OVERRIDE_DIST_PATH'];
  const binary = override ? join(override, executable || 'electron') : join(electronPackageDir, 'dist', executable);
  if (!existsSync(binary)) return { available: false, reason: `its binary is missing (${binary})` };
  return { available: true, path: binary };
}

/** Runs `<binary> --version`: the binary exists, is executable and finds its shared libraries. */
export function checkElectronRuns(binary: string, timeoutMs = VERSION_CHECK_TIMEOUT_MS): Promise<ElectronBinary> {
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { timeout: timeoutMs, env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } }, (error, stdout) => {
      if (error)
        resolve({
          available: false,
          reason: `its binary does not start (${error.killed ? 'no answer to --version' : error.message.split('\n')[0]})`,
        });
      else if (!/^v?\d+\.\d+/.test(stdout.trim())) resolve({ available: false, reason: 'its binary did not report a version' });
      else resolve({ available: true, path: binary });
    });
  });
}

export function electronUnavailableMessage(reason: string): string {
  return `Electron is not available on this machine (${reason}). Run the kiosk in a browser instead: npx ticket-kiosk web`;
}

function electronPackageDirectory(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const located = locateElectronBinary();
  const binary = located.available ? await checkElectronRuns(located.path) : located;
  if (!binary.available) {
    console.error(electronUnavailableMessage(binary.reason));
    process.exitCode = 1;
    return;
  }
  // The package directory, not main.js itself: Electron then takes the app's name (and so its
  // userData directory) from package.json, and starts "main": dist/main/electron/main.js.
  const child = spawn(binary.path, [packageRoot(), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches Electron through the terminal too; a SIGTERM to this launcher (a service manager) is passed on.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    console.error(electronUnavailableMessage(`it could not be started: ${error.message}`));
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}

// Run only as a script (`node dist/main/start.js`), not when a test imports this module.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await main();
