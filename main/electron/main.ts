/**
 * The Electron shell: one window, the kiosk core behind typed IPC, nothing
 * else. Launched by `npm start` (main/start.ts) or as a packaged app.
 *
 * Security (Electron's checklist; the pieces live in security.ts so they are
 * tested): sandboxed, context-isolated renderer without Node; a strict CSP;
 * no navigation, new windows, <webview> or permissions; IPC answered only for
 * our own page, every argument validated (main/host/kiosk-calls.ts); the API key stays
 * in this process and the OS keyring.
 *
 * The on-site issuer (main/onsite-issuer) runs in this process too when the
 * operator starts it (the Issuer menu, IPC ISSUER_CHANNELS, or --onsite-issuer); its admin
 * dashboard opens in a window of its own whose session trusts only the
 * issuer's pinned certificate (admin-window.ts). On quit the kiosk core
 * closes first (it may be draining to that issuer), then the issuer.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, protocol, session, type Session } from 'electron';
import { issuerFileLogger, OnsiteIssuer } from '../onsite-issuer/onsite-issuer.js';
import {
  ADMIN_PARTITION,
  adminWindowOptions,
  applyAdminContentsPolicies,
  applyAdminSessionPolicies,
  type AdminPin,
} from './admin-window.js';
import { packageRoot, rendererDistDir } from '../host/app-paths.js';
import { APP_PAGE_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, handleAppScheme } from './app-scheme.js';
import { ISSUER_CHANNELS, KIOSK_CHANNELS, STATE_CHANGED_CHANNEL } from '../host/call-channels.js';
import { forbiddenAnswer, handleKioskCall, KIOSK_CALL_NAMES } from '../host/kiosk-calls.js';
import {
  handleIssuerCall,
  ISSUER_CALL_NAMES,
  issuerForbiddenAnswer,
  type IssuerAnswer,
  type IssuerCallName,
  type IssuerHost,
} from './onsite-issuer-calls.js';
import { adminTokenText, applicationMenuTemplate, issuerDetailsText } from './issuer-menu.js';
import { startKioskRuntime, type KioskRuntime } from '../host/kiosk-runtime.js';
import { KioskModeGuard } from './kiosk-mode.js';
import { applyContentsPolicies, applySessionPolicies, isTrustedSender, windowOptions } from './security.js';
import { pageMayUseOnsiteIssuer, parseShellOptions, type ShellOptions } from './electron-shell-options.js';

const PRELOAD_PATH = join(dirname(fileURLToPath(import.meta.url)), 'preload.cjs');
const RENDERER_DIR = rendererDistDir(packageRoot());
const INDEX_HTML = join(RENDERER_DIR, 'index.html');

let runtime: KioskRuntime | null = null;
let mainWindow: BrowserWindow | null = null;
let shutDown = false;
let kioskMode = false;
/** Leaving kiosk mode or closing its window is for staff (main/electron/kiosk-mode.ts). */
let kioskModeGuard: KioskModeGuard | null = null;
let onsiteIssuer: OnsiteIssuer | null = null;
let adminWindow: BrowserWindow | null = null;
let adminSession: Session | null = null;
/** The dashboard window's pin and URL, set each time it is opened (the issuer may have restarted). */
let adminPin: AdminPin | null = null;
let adminUrl: string | null = null;
/** True while the dashboard's BrowserWindow is being constructed: its web contents get the admin policies. */
let creatingAdminWindow = false;

function log(line: string): void {
  console.log(`[kiosk] ${line}`);
}

function fail(title: string, message: string): void {
  console.error(`[kiosk] ${title}: ${message}`);
  dialog.showErrorBox(title, message);
  shutDown = true; // app.exit skips will-quit: close the core here
  kioskModeGuard?.quit();
  void shutdown().finally(() => app.exit(1));
}

async function start(): Promise<void> {
  const options = parseShellOptions(process.argv, process.env);
  kioskMode = options.kiosk;
  applySessionPolicies(session.defaultSession);
  if (!existsSync(INDEX_HTML)) {
    fail('Ticket Kiosk is not built', `${INDEX_HTML} is missing. Build the screens: npx vite build --config renderer/vite.config.ts`);
    return;
  }
  runtime = await startKioskRuntime({
    dataDir: app.getPath('userData'),
    hidScanners: options.hidScanners,
    knownScanners: options.knownScanners,
    lan: options.lan ? {} : false,
    ...(options.issuerCaFile ? { issuerCaFile: options.issuerCaFile } : {}),
    ...(options.repeatReadWindowMs === null ? {} : { repeatReadWindowMs: options.repeatReadWindowMs }),
    platform: `${process.platform} ${process.arch} electron ${process.versions.electron}`,
    log,
  });
  const core = runtime.core;

  for (const method of KIOSK_CALL_NAMES) {
    ipcMain.handle(KIOSK_CHANNELS[method], (event, ...args: unknown[]) => {
      if (!isTrustedSender(event.senderFrame?.url, APP_PAGE_URL)) return forbiddenAnswer();
      return handleKioskCall(core, method, args, {
        onInternalError: (failed, error) =>
          log(`${failed} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
      });
    });
  }

  setUpOnsiteIssuer(options, core);

  const window = new BrowserWindow(windowOptions({ preloadPath: PRELOAD_PATH, kiosk: options.kiosk }));
  mainWindow = window;
  const guard = new KioskModeGuard(core, window, options.kiosk);
  kioskModeGuard = guard;
  // In kiosk mode the window closes (Alt+F4, the window manager) only for unlocked staff.
  window.on('close', (event) => {
    if (!guard.mayClose()) event.preventDefault();
  });
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    mainWindow = null;
  });
  // The one push: every state change (including verdicts of HID scans) goes to the page.
  core.onStateChange((state) => {
    if (!window.isDestroyed()) window.webContents.send(STATE_CHANGED_CHANNEL, state);
  });
  // The page comes from kiosk://app/ (app-scheme.ts), never file://: only the built screens are reachable.
  handleAppScheme(protocol, RENDERER_DIR);
  await window.loadURL(APP_PAGE_URL);
}

/** The on-site issuer on <userData>/issuer-data: IPC for the page, and a start at launch with --onsite-issuer. */
function setUpOnsiteIssuer(options: ShellOptions, core: KioskRuntime['core']): void {
  const userData = app.getPath('userData');
  const issuer = new OnsiteIssuer({ dataDir: join(userData, 'issuer-data'), logger: issuerFileLogger(join(userData, 'issuer.log')) });
  onsiteIssuer = issuer;
  // Without handlers the page's calls fail and its issuer panel stays empty (renderer/screens/onsite-issuer-panel.ts).
  for (const method of pageMayUseOnsiteIssuer(options) ? ISSUER_CALL_NAMES : []) {
    ipcMain.handle(ISSUER_CHANNELS[method], (event, ...args: unknown[]) => {
      if (!isTrustedSender(event.senderFrame?.url, APP_PAGE_URL)) return issuerForbiddenAnswer();
      // The page's issuer panel is a staff function (docs/kiosk.md "Staff PIN"); the Issuer menu is the desktop's own.
      return issuerCall(method, args, (call) => core.requireStaff(call));
    });
  }
  void refreshIssuerMenu();
  if (options.onsiteIssuer) void startIssuerAtLaunch(issuer, options).finally(refreshIssuerMenu);
}

/** One issuer call, from the page or the menu: the same validation and answers; the menu then shows the new state. */
async function issuerCall(method: IssuerCallName, args: unknown[], staff?: IssuerHost['staff']): Promise<IssuerAnswer<unknown>> {
  const issuer = onsiteIssuer;
  if (issuer === null) return { ok: false, error: { code: 'not_running', message: 'The app is shutting down.' } };
  try {
    return await handleIssuerCall({ issuer, openAdmin: openAdminWindow, ...(staff ? { staff } : {}) }, method, args, {
      onInternalError: (failed, error) =>
        log(`issuer ${failed} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
    });
  } finally {
    // The menu shows the issuer's state: rebuild it after the calls that change it (a screen may poll status).
    if (method !== 'status' && method !== 'openAdmin') void refreshIssuerMenu();
  }
}

/** The application menu with the Issuer menu for the current state (kiosk mode shows no menu bar). */
async function refreshIssuerMenu(): Promise<void> {
  const issuer = onsiteIssuer;
  if (issuer === null || shutDown) return;
  const fromMenu = async (method: IssuerCallName, what: string): Promise<IssuerAnswer<unknown>> => {
    const answer = await issuerCall(method, []);
    if (!answer.ok) dialog.showErrorBox(`The on-site issuer could not ${what}`, answer.error.message);
    return answer;
  };
  let status;
  try {
    status = await issuer.status();
  } catch (error) {
    log(`on-site issuer status failed: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const template = applicationMenuTemplate(status, {
    start: () => void fromMenu('start', 'start'),
    stop: () => void fromMenu('stop', 'stop'),
    openAdmin: () => void fromMenu('openAdmin', 'open the admin dashboard'),
    newAdminToken: () =>
      void fromMenu('resetAdminToken', 'make an admin dashboard token').then(async (answer) => {
        if (!answer.ok) return;
        const { adminToken } = answer.value as { adminToken: string };
        const { response } = await dialog.showMessageBox({
          type: 'info',
          ...adminTokenText(adminToken, await issuer.status()),
          buttons: ['Copy and close', 'Close'],
          defaultId: 0,
        });
        if (response === 0) clipboard.writeText(adminToken);
      }),
    showDetails: () =>
      void issuer.status().then((current) => dialog.showMessageBox({ type: 'info', ...issuerDetailsText(current), buttons: ['Close'] })),
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

async function startIssuerAtLaunch(issuer: OnsiteIssuer, options: ShellOptions): Promise<void> {
  try {
    if (!(await issuer.status()).initialised) {
      if (options.issuerName === null) {
        log(
          `on-site issuer: ${issuer.dataDirectory} has no issuer yet; start with --issuer-name NAME [--issuer-base-url URL] to create it`,
        );
        return;
      }
      await issuer.init({ name: options.issuerName, ...(options.issuerBaseUrl === null ? {} : { baseUrl: options.issuerBaseUrl }) });
    }
    const status = await issuer.start();
    log(
      `on-site issuer "${status.issuer?.name}" serving ${status.issuer?.baseUrl} at ${status.urls.join(', ') || status.adminUrl}; certificate SHA-256 ${status.fingerprint}; data ${status.dataDir}`,
    );
    for (const warning of status.warnings) log(`on-site issuer: ${warning}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`on-site issuer did not start: ${message}`);
    dialog.showErrorBox('The on-site issuer did not start', message);
  }
}

/** The issuer's admin dashboard in its own window; its session trusts only the issuer's pinned certificate. */
async function openAdminWindow(target: { url: string; fingerprint: string }): Promise<void> {
  adminPin = { hostname: new URL(target.url).hostname, fingerprint: target.fingerprint };
  adminUrl = target.url;
  if (adminSession === null) {
    adminSession = session.fromPartition(ADMIN_PARTITION);
    applyAdminSessionPolicies(adminSession, () => adminPin);
  }
  if (adminWindow === null || adminWindow.isDestroyed()) {
    creatingAdminWindow = true;
    try {
      adminWindow = new BrowserWindow(adminWindowOptions({ kiosk: kioskMode }));
    } finally {
      creatingAdminWindow = false;
    }
    const window = adminWindow;
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => {
      if (adminWindow === window) adminWindow = null;
    });
  } else {
    adminWindow.focus();
  }
  await adminWindow.loadURL(target.url);
}

async function shutdown(): Promise<void> {
  for (const channel of [...Object.values(KIOSK_CHANNELS), ...Object.values(ISSUER_CHANNELS)]) ipcMain.removeHandler(channel);
  try {
    // The kiosk first: its drain may be talking to the on-site issuer.
    await runtime?.close();
  } finally {
    runtime = null;
    // Requests in flight finish, the pending check-ins are written, the database closes.
    await onsiteIssuer?.stop();
    onsiteIssuer = null;
  }
}

if (!app.requestSingleInstanceLock()) {
  // Two kiosks on one state file and one scanner would fight over both.
  app.quit();
} else {
  app.enableSandbox(); // every renderer, whatever its webPreferences say
  // Before the app is ready, as Electron requires: kiosk:// is a standard, secure origin of its own.
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);
  app.on('second-instance', () => {
    if (mainWindow?.isMinimized()) mainWindow.restore();
    mainWindow?.focus();
  });
  app.on('web-contents-created', (_event, contents) => {
    if (creatingAdminWindow || (adminSession !== null && contents.session === adminSession))
      applyAdminContentsPolicies(contents, () => adminUrl);
    else applyContentsPolicies(contents, APP_PAGE_URL);
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (shutDown) return;
    kioskModeGuard?.quit();
    // Wait for the scan in flight and the queue's last write before exiting.
    event.preventDefault();
    shutDown = true;
    shutdown()
      .catch((error: unknown) => console.error('[kiosk] shutdown failed:', error instanceof Error ? error.message : error))
      .finally(() => app.quit());
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      kioskModeGuard?.quit();
      app.quit();
    });

  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      // SecretStoreUnavailableError's message tells IT what to install; no message here holds a secret.
      fail('Ticket Kiosk cannot start', error instanceof Error ? error.message : String(error));
    });
}
