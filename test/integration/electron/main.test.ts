/**
 * main/electron/main.ts with Electron replaced at its module boundary (the
 * binary cannot run here) by a thin recorder. Everything behind it is real:
 * the kiosk core on a temp directory, the OS keyring (run inside
 * scripts/with-keyring.sh), node-hid, the on-site issuer on a real socket.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_PARTITION, adminWindowOptions, CERT_ACCEPT, CERT_REJECT } from '../../../main/electron/admin-window.js';
import { ISSUER_CHANNELS, KIOSK_CHANNELS, STATE_CHANGED_CHANNEL } from '../../../main/host/call-channels.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/host/content-security-policy.js';
import { windowOptions } from '../../../main/electron/security.js';
import { freePort } from '../../support/free-port.js';

type Listener = (...args: unknown[]) => unknown;

const electron = vi.hoisted(() => {
  const appListeners = new Map<string, Listener>();
  const state = {
    dataDir: '',
    appListeners,
    ipcHandlers: new Map<string, Listener>(),
    removedHandlers: [] as string[],
    windows: [] as Array<{
      options: unknown;
      loadedFile: string | null;
      loadedUrl: string | null;
      sent: Array<[string, unknown]>;
      contents: Map<string, Listener>;
    }>,
    session: { request: null as Listener | null, check: null as Listener | null, headers: null as Listener | null },
    partitions: new Map<string, { verifyProc: Listener | null; request: Listener | null; check: Listener | null }>(),
    menus: [] as Array<
      Array<{ label?: string; role?: string; submenu?: Array<{ id?: string; label?: string; enabled?: boolean; click?: () => void }> }>
    >,
    messageBoxes: [] as Array<{ message: string; detail: string; buttons: string[] }>,
    clipboard: null as string | null,
    errors: [] as Array<[string, string]>,
    quitCalls: 0,
    sandboxEnabled: false,
    privilegedSchemes: [] as unknown[],
    protocolHandlers: new Map<string, (request: Request) => Response | Promise<Response>>(),
    registeredBeforeReady: false,
    ready: false,
  };
  class BrowserWindow {
    readonly record = {
      options: null as unknown,
      loadedFile: null as string | null,
      loadedUrl: null as string | null,
      sent: [] as Array<[string, unknown]>,
      contents: new Map<string, Listener>(),
    };
    readonly webContents = {
      send: (channel: string, payload: unknown) => this.record.sent.push([channel, payload]),
      on: (event: string, listener: Listener) => this.record.contents.set(event, listener),
      setWindowOpenHandler: (handler: Listener) => this.record.contents.set('window-open', handler),
    };
    constructor(options: unknown) {
      this.record.options = options;
      state.windows.push(this.record);
      // Like Electron, the new web contents is announced while the window is being constructed.
      appListeners.get('web-contents-created')?.({}, this.webContents);
    }
    once(): void {}
    on(): void {}
    show(): void {}
    isDestroyed(): boolean {
      return false;
    }
    isMinimized(): boolean {
      return false;
    }
    focus(): void {}
    async loadFile(path: string): Promise<void> {
      this.record.loadedFile = path;
    }
    async loadURL(url: string): Promise<void> {
      this.record.loadedUrl = url;
    }
  }
  const module = {
    app: {
      on: (event: string, listener: Listener) => appListeners.set(event, listener),
      whenReady: () => {
        state.ready = true;
        return Promise.resolve();
      },
      requestSingleInstanceLock: () => true,
      enableSandbox: () => {
        state.sandboxEnabled = true;
      },
      getPath: (name: string) => (name === 'userData' ? state.dataDir : '/nonexistent'),
      quit: () => {
        state.quitCalls++;
      },
      exit: () => undefined,
    },
    BrowserWindow,
    ipcMain: {
      handle: (channel: string, handler: Listener) => state.ipcHandlers.set(channel, handler),
      removeHandler: (channel: string) => state.removedHandlers.push(channel),
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (listener: Listener) => (state.session.headers = listener) },
        setPermissionRequestHandler: (handler: Listener) => (state.session.request = handler),
        setPermissionCheckHandler: (handler: Listener) => (state.session.check = handler),
      },
      fromPartition: (partition: string) => {
        if (!state.partitions.has(partition)) state.partitions.set(partition, { verifyProc: null, request: null, check: null });
        const recorded = state.partitions.get(partition)!;
        return {
          setCertificateVerifyProc: (proc: Listener) => (recorded.verifyProc = proc),
          setPermissionRequestHandler: (handler: Listener) => (recorded.request = handler),
          setPermissionCheckHandler: (handler: Listener) => (recorded.check = handler),
        };
      },
    },
    dialog: {
      showErrorBox: (title: string, message: string) => state.errors.push([title, message]),
      showMessageBox: async (options: { message: string; detail: string; buttons: string[] }) => {
        state.messageBoxes.push(options);
        return { response: 0, checkboxChecked: false };
      },
    },
    Menu: {
      buildFromTemplate: (template: unknown) => template,
      setApplicationMenu: (menu: (typeof state.menus)[number]) => state.menus.push(menu),
    },
    clipboard: { writeText: (text: string) => (state.clipboard = text) },
    protocol: {
      registerSchemesAsPrivileged: (schemes: unknown[]) => {
        state.privilegedSchemes.push(...schemes);
        state.registeredBeforeReady = !state.ready;
      },
      handle: (scheme: string, handler: (request: Request) => Response | Promise<Response>) => state.protocolHandlers.set(scheme, handler),
    },
  };
  return { state, module };
});

vi.mock('electron', () => ({ ...electron.module, default: electron.module }));

const INDEX_HTML = resolve('dist/kiosk-page/index.html');
const APP_PAGE_URL = 'kiosk://app/index.html';
const rendererBuilt = existsSync(INDEX_HTML);
const state = electron.state;

beforeAll(async () => {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error('This test starts the real kiosk runtime, which needs an OS keyring: run it inside scripts/with-keyring.sh');
  }
  state.dataDir = mkdtempSync(join(tmpdir(), 'kiosk-electron-main-'));
  await import('../../../main/electron/main.js');
  // start() runs after whenReady(): wait until it has either loaded the page or reported why not.
  await vi.waitFor(() => expect(state.windows[0]?.loadedUrl ?? state.errors[0]).toBeTruthy(), { timeout: 15_000 });
});

afterAll(async () => {
  if (state.quitCalls === 0) await quitLikeElectron();
  rmSync(state.dataDir, { recursive: true, force: true });
});

let port = 0;

function connects(target: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(target, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Electron emits will-quit; main.ts delays it until the core has closed, then quits again. */
async function quitLikeElectron(): Promise<{ prevented: boolean }> {
  let prevented = false;
  const quitsBefore = state.quitCalls;
  state.appListeners.get('will-quit')!({ preventDefault: () => (prevented = true) });
  await vi.waitFor(() => expect(state.quitCalls).toBeGreaterThan(quitsBefore));
  return { prevented };
}

describe('the Electron shell', () => {
  it('sandboxes every renderer and applies the navigation policies to all web contents', () => {
    expect(state.sandboxEnabled).toBe(true);
    const contentsListeners = new Map<string, Listener>();
    let openHandler: Listener | undefined;
    state.appListeners.get('web-contents-created')!(
      {},
      {
        on: (event: string, listener: Listener) => contentsListeners.set(event, listener),
        setWindowOpenHandler: (handler: Listener) => (openHandler = handler),
      },
    );
    let prevented = false;
    contentsListeners.get('will-navigate')!({ url: 'https://evil.example/', preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(openHandler!()).toEqual({ action: 'deny' });
  });

  it('refuses permissions and sets the CSP on the default session', () => {
    let granted: boolean | undefined;
    state.session.request!({}, 'media', (answer: boolean) => (granted = answer), {});
    expect(granted).toBe(false);
    expect(state.session.check!({}, 'media', 'file://', {})).toBe(false);
    let response: { responseHeaders: Record<string, string[]> } | undefined;
    state.session.headers!({ responseHeaders: {} }, (r: unknown) => (response = r as typeof response));
    expect(response?.responseHeaders['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
  });

  // `npm test` builds the renderer first; without it the window would have nothing to load.
  it('finds the built renderer (run `npm run build:renderer` if this fails)', () => {
    expect(rendererBuilt).toBe(true);
  });

  describe('with the renderer built', () => {
    it('opens one window with the secure options and our preload, and loads the page from kiosk://app/, never file://', async () => {
      expect(state.errors).toEqual([]);
      expect(state.windows).toHaveLength(1);
      const options = state.windows[0]!.options as ReturnType<typeof windowOptions>;
      expect(options.webPreferences?.preload).toMatch(/main[\\/]electron[\\/]preload\.cjs$/);
      expect(options).toEqual(windowOptions({ preloadPath: options.webPreferences!.preload!, kiosk: false }));
      expect(state.windows[0]!.loadedFile).toBeNull();
      expect(state.windows[0]!.loadedUrl).toBe(APP_PAGE_URL);
      // kiosk:// was made a standard, secure scheme before the app was ready, and its handler serves the built page.
      expect(state.privilegedSchemes).toEqual([{ scheme: 'kiosk', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
      expect(state.registeredBeforeReady).toBe(true);
      const serve = state.protocolHandlers.get('kiosk')!;
      const page = await serve(new Request(APP_PAGE_URL));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toBe(readFileSync(INDEX_HTML, 'utf8'));
      expect((await serve(new Request('kiosk://app/../package.json'))).status).toBe(404);
      expect((await serve(new Request('kiosk://app/%2e%2e/package.json'))).status).toBe(404);
    });

    it('answers IPC on every channel for our page only, with validated input', async () => {
      expect([...state.ipcHandlers.keys()].sort()).toEqual([...Object.values(KIOSK_CHANNELS), ...Object.values(ISSUER_CHANNELS)].sort());
      const invoke = (channel: string, frameUrl: string | null, ...args: unknown[]) =>
        state.ipcHandlers.get(channel)!({ senderFrame: frameUrl === null ? null : { url: frameUrl } }, ...args);

      expect(await invoke(KIOSK_CHANNELS.getState, APP_PAGE_URL)).toMatchObject({ ok: true, value: { enrolled: false } });
      expect(await invoke(KIOSK_CHANNELS.getState, 'https://evil.example/')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await invoke(KIOSK_CHANNELS.getState, null)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await invoke(KIOSK_CHANNELS.scan, APP_PAGE_URL, { text: 'tkt1.x' })).toMatchObject({
        ok: false,
        error: { code: 'invalid_input' },
      });
    });

    it('pushes each state change to the window on the one push channel', async () => {
      const sent = state.windows[0]!.sent;
      await state.ipcHandlers.get(KIOSK_CHANNELS.setScannerName)!({ senderFrame: { url: APP_PAGE_URL } }, 'Side door');
      expect(sent.at(-1)).toEqual([
        STATE_CHANGED_CHANNEL,
        expect.objectContaining({ scanner: expect.objectContaining({ name: 'Side door' }) }),
      ]);
    });
  });

  describe('the on-site issuer', () => {
    const invoke = (channel: string, frameUrl: string, ...args: unknown[]) =>
      state.ipcHandlers.get(channel)!({ senderFrame: { url: frameUrl } }, ...args);

    it('answers the issuer channels for our page only, on a data dir under userData', async () => {
      expect(await invoke(ISSUER_CHANNELS.status, 'https://evil.example/')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
      expect(await invoke(ISSUER_CHANNELS.status, APP_PAGE_URL)).toMatchObject({
        ok: true,
        value: { initialised: false, running: false, dataDir: join(state.dataDir, 'issuer-data') },
      });
      expect(await invoke(ISSUER_CHANNELS.init, APP_PAGE_URL, { name: 'Harbour', dataDir: '/tmp/elsewhere' })).toMatchObject({
        ok: false,
        error: { code: 'invalid_input' },
      });
    });

    it('initialises, starts, and opens the dashboard in its own window whose session trusts only the pinned certificate', async () => {
      port = await freePort();
      expect(
        await invoke(ISSUER_CHANNELS.init, APP_PAGE_URL, { name: 'Harbour Festival', baseUrl: `https://127.0.0.1:${port}` }),
      ).toMatchObject({ ok: true });
      const started = (await invoke(ISSUER_CHANNELS.start, APP_PAGE_URL)) as { ok: true; value: { fingerprint: string; adminUrl: string } };
      expect(started).toMatchObject({ ok: true, value: { running: true, adminUrl: `https://127.0.0.1:${port}/admin` } });
      expect(await connects(port)).toBe(true);

      expect(await invoke(ISSUER_CHANNELS.openAdmin, APP_PAGE_URL)).toEqual({ ok: true, value: { url: started.value.adminUrl } });
      const admin = state.windows.at(-1)!;
      expect(state.windows).toHaveLength(2);
      expect(admin.options).toEqual(adminWindowOptions({ kiosk: false }));
      expect(admin.loadedUrl).toBe(started.value.adminUrl);
      // The admin window may move within the issuer's origin; the kiosk window still may not leave its page.
      const navigate = (window: typeof admin, url: string): boolean => {
        let prevented = false;
        window.contents.get('will-navigate')!({ url, preventDefault: () => (prevented = true) });
        return prevented;
      };
      expect(navigate(admin, `https://127.0.0.1:${port}/admin/events`)).toBe(false);
      expect(navigate(admin, 'https://evil.example/')).toBe(true);
      expect(navigate(state.windows[0]!, `https://127.0.0.1:${port}/admin/events`)).toBe(true);

      const partition = state.partitions.get(ADMIN_PARTITION)!;
      const certificate = readFileSync(join(state.dataDir, 'issuer-data', 'tls', 'cert.pem'), 'utf8');
      const verify = (hostname: string): number => {
        let result = Number.NaN;
        partition.verifyProc!({ hostname, certificate: { data: certificate } }, (answer: number) => (result = answer));
        return result;
      };
      expect(verify('127.0.0.1')).toBe(CERT_ACCEPT);
      expect(verify('example.com')).toBe(CERT_REJECT);
      // The kiosk's own session was not given a verify proc: only the dashboard's trusts the issuer.
      expect(state.partitions.size).toBe(1);

      // Opening it again reuses the window.
      await invoke(ISSUER_CHANNELS.openAdmin, APP_PAGE_URL);
      expect(state.windows).toHaveLength(2);
    });

    it('keeps the Issuer menu in step: state line, start/stop, a new dashboard token shown once and copied, details', async () => {
      const issuerMenu = () => state.menus.at(-1)!.find((menu) => menu.label === 'Issuer')!.submenu!;
      const item = (id: string) => issuerMenu().find((entry) => entry.id === id)!;
      expect(item('issuer-state').label).toBe(`On-site issuer "Harbour Festival": running at https://127.0.0.1:${port}`);
      expect(item('issuer-start').enabled).toBe(false);
      expect(item('issuer-stop').enabled).toBe(true);
      expect(item('issuer-admin').enabled).toBe(true);

      item('issuer-token').click!();
      await vi.waitFor(() => expect(state.clipboard).toMatch(/^tva_/));
      const tokenBox = state.messageBoxes.at(-1)!;
      expect(tokenBox.detail.split('\n')[0]).toBe(state.clipboard);
      expect(await invoke(ISSUER_CHANNELS.status, APP_PAGE_URL)).toMatchObject({ ok: true, value: { adminTokenSet: true } });

      item('issuer-details').click!();
      await vi.waitFor(() => expect(state.messageBoxes.at(-1)!.message).toBe('On-site issuer "Harbour Festival"'));
      const started = (await invoke(ISSUER_CHANNELS.status, APP_PAGE_URL)) as { value: { fingerprint: string } };
      expect(state.messageBoxes.at(-1)!.detail).toContain(started.value.fingerprint);
      expect(state.messageBoxes.at(-1)!.detail).not.toContain(state.clipboard!);

      item('issuer-stop').click!();
      await vi.waitFor(() => expect(item('issuer-state').label).toBe('On-site issuer "Harbour Festival": stopped'));
      expect(await connects(port)).toBe(false);
      item('issuer-start').click!();
      await vi.waitFor(() => expect(item('issuer-stop').enabled).toBe(true));
      expect(await connects(port)).toBe(true);
    });
  });

  it('on quit, holds Electron until the core and the on-site issuer have closed, removing the IPC handlers', async () => {
    const { prevented } = await quitLikeElectron();
    expect(prevented).toBe(true);
    if (rendererBuilt)
      expect(state.removedHandlers.sort()).toEqual([...Object.values(KIOSK_CHANNELS), ...Object.values(ISSUER_CHANNELS)].sort());
    if (port !== 0) expect(await connects(port)).toBe(false);
    // The second will-quit (from that app.quit) goes through.
    let preventedAgain = false;
    state.appListeners.get('will-quit')!({ preventDefault: () => (preventedAgain = true) });
    expect(preventedAgain).toBe(false);
  });
});
