/**
 * The Electron shell: one window, the kiosk core behind typed IPC, nothing
 * else. Launched by `npm start` (main/start.ts) or as a packaged app.
 *
 * Security (Electron's checklist; the pieces live in security.ts so they are
 * tested): sandboxed, context-isolated renderer without Node; a strict CSP;
 * no navigation, new windows, <webview> or permissions; IPC answered only for
 * our own page, every argument validated (ipc-handlers.ts); the API key stays
 * in this process and the OS keyring.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session } from 'electron';
import { packageRoot, rendererDistDir } from './app-paths.js';
import { KIOSK_CHANNELS, STATE_CHANGED_CHANNEL } from './ipc-channels.js';
import { forbiddenAnswer, handleKioskCall, KIOSK_CALL_NAMES } from './ipc-handlers.js';
import { startKioskRuntime, type KioskRuntime } from './kiosk-runtime.js';
import { applyContentsPolicies, applySessionPolicies, isTrustedSender, windowOptions } from './security.js';
import { parseShellOptions } from './shell-options.js';

const PRELOAD_PATH = join(dirname(fileURLToPath(import.meta.url)), 'preload.cjs');
const INDEX_HTML = join(rendererDistDir(packageRoot()), 'index.html');
const APP_PAGE_URL = pathToFileURL(INDEX_HTML).href;

let runtime: KioskRuntime | null = null;
let mainWindow: BrowserWindow | null = null;
let shutDown = false;

function log(line: string): void {
  console.log(`[kiosk] ${line}`);
}

function fail(title: string, message: string): void {
  console.error(`[kiosk] ${title}: ${message}`);
  dialog.showErrorBox(title, message);
  shutDown = true; // app.exit skips will-quit: close the core here
  void shutdown().finally(() => app.exit(1));
}

async function start(): Promise<void> {
  const options = parseShellOptions(process.argv, process.env);
  applySessionPolicies(session.defaultSession);
  if (!existsSync(INDEX_HTML)) {
    fail('Ticket Kiosk is not built', `${INDEX_HTML} is missing. Build the screens: npx vite build --config renderer/vite.config.ts`);
    return;
  }
  runtime = await startKioskRuntime({
    dataDir: app.getPath('userData'),
    hidScanners: options.hidScanners,
    knownScanners: options.knownScanners,
    ...(options.issuerCaFile ? { issuerCaFile: options.issuerCaFile } : {}),
    platform: `${process.platform} ${process.arch} electron ${process.versions.electron}`,
    log,
  });
  const core = runtime.core;

  for (const method of KIOSK_CALL_NAMES) {
    ipcMain.handle(KIOSK_CHANNELS[method], (event, ...args: unknown[]) => {
      if (!isTrustedSender(event.senderFrame?.url, APP_PAGE_URL)) return forbiddenAnswer();
      return handleKioskCall(core, method, args, {
        onInternalError: (failed, error) => log(`${failed} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
      });
    });
  }

  const window = new BrowserWindow(windowOptions({ preloadPath: PRELOAD_PATH, kiosk: options.kiosk }));
  mainWindow = window;
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    mainWindow = null;
  });
  // The one push: every state change (including verdicts of HID scans) goes to the page.
  core.onStateChange((state) => {
    if (!window.isDestroyed()) window.webContents.send(STATE_CHANGED_CHANNEL, state);
  });
  await window.loadFile(INDEX_HTML);
}

async function shutdown(): Promise<void> {
  for (const channel of Object.values(KIOSK_CHANNELS)) ipcMain.removeHandler(channel);
  await runtime?.close();
  runtime = null;
}

if (!app.requestSingleInstanceLock()) {
  // Two kiosks on one state file and one scanner would fight over both.
  app.quit();
} else {
  app.enableSandbox(); // every renderer, whatever its webPreferences say
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('web-contents-created', (_event, contents) => applyContentsPolicies(contents, APP_PAGE_URL));
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (shutDown) return;
    // Wait for the scan in flight and the queue's last write before exiting.
    event.preventDefault();
    shutDown = true;
    shutdown()
      .catch((error: unknown) => console.error('[kiosk] shutdown failed:', error instanceof Error ? error.message : error))
      .finally(() => app.quit());
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      // SecretStoreUnavailableError's message tells IT what to install; no message here holds a secret.
      fail('Ticket Kiosk cannot start', error instanceof Error ? error.message : String(error));
    });
}
