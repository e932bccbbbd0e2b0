/**
 * The preload as Electron's sandbox runs it: compiled to CommonJS and run
 * with a `require` that has only 'electron' (a sandboxed preload has nothing
 * else). The thin 'electron' stand-in routes ipcRenderer.invoke to the real
 * handlers over a real kiosk core, as ipcMain would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ISSUER_CHANNELS, KIOSK_CHANNELS, STATE_CHANGED_CHANNEL } from '../../../main/host/call-channels.js';
import { handleKioskCall, KIOSK_CALL_NAMES } from '../../../main/host/kiosk-calls.js';
import { handleIssuerCall, ISSUER_CALL_NAMES } from '../../../main/electron/onsite-issuer-calls.js';
import type { OnsiteIssuerApi } from '../../../renderer/onsite-issuer-bridge-types.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { OnsiteIssuer } from '../../../main/onsite-issuer/onsite-issuer.js';
import type { KioskApi } from '../../../renderer/kiosk-bridge-types.js';
import { captureLog } from '../../support/unit/log-capture.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

const source = readFileSync('main/electron/preload.cts', 'utf8');
const compiled = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  fileName: 'preload.cts',
}).outputText;

let dir: { dir: string; cleanup: () => void };
let core: KioskCore;
let issuer: OnsiteIssuer;

beforeEach(() => {
  dir = tempDir('kiosk-preload-');
  core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys: new MemoryApiKeys(), autoDrain: false });
  issuer = new OnsiteIssuer({ dataDir: join(dir.dir, 'issuer-data'), logger: captureLog().logger, networkInterfaces: () => ({}) });
});

afterEach(async () => {
  await core.close();
  await issuer.stop();
  dir.cleanup();
});

function runPreload() {
  const required: string[] = [];
  const exposed = new Map<string, unknown>();
  const rendererListeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const channelToMethod = new Map<string, string>(KIOSK_CALL_NAMES.map((method) => [KIOSK_CHANNELS[method], method]));
  const issuerChannelToMethod = new Map<string, string>(ISSUER_CALL_NAMES.map((method) => [ISSUER_CHANNELS[method], method]));
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (channel: string, ...args: unknown[]) => {
        const issuerMethod = issuerChannelToMethod.get(channel);
        if (issuerMethod) return structuredClone(await handleIssuerCall({ issuer }, issuerMethod, structuredClone(args)));
        const method = channelToMethod.get(channel);
        if (!method) throw new Error(`No handler registered for '${channel}'`); // what Electron says
        // Structured clone, as IPC does: nothing but data crosses.
        return structuredClone(await handleKioskCall(core, method, structuredClone(args)));
      },
      on: (channel: string, listener: (...args: unknown[]) => void) => {
        if (!rendererListeners.has(channel)) rendererListeners.set(channel, new Set());
        rendererListeners.get(channel)!.add(listener);
      },
      removeListener: (channel: string, listener: (...args: unknown[]) => void) => rendererListeners.get(channel)?.delete(listener),
    },
  };
  const module = { exports: {} };
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (name === 'electron') return electron;
    throw new Error(`module not found: ${name} (a sandboxed preload can only require electron)`);
  };
  runInNewContext(compiled, { require: sandboxRequire, module, exports: module.exports, Promise, Error, Set, Map, JSON, Object });
  const push = (state: unknown) =>
    rendererListeners.get(STATE_CHANGED_CHANNEL)?.forEach((listener) => listener({ sender: 'ipc-event' }, state));
  return { required, exposed, push, rendererListeners };
}

describe('preload', () => {
  it("requires nothing but 'electron' and exposes exactly window.kiosk (KioskApi) and window.onsiteIssuer (OnsiteIssuerApi)", () => {
    const { required, exposed } = runPreload();
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['kiosk', 'onsiteIssuer']);
    const api = exposed.get('kiosk') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([...KIOSK_CALL_NAMES, 'onStateChange'].sort());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
    const issuerApi = exposed.get('onsiteIssuer') as Record<string, unknown>;
    expect(Object.keys(issuerApi).sort()).toEqual([...ISSUER_CALL_NAMES].sort());
    for (const value of Object.values(issuerApi)) expect(typeof value).toBe('function');
  });

  it('window.onsiteIssuer resolves with the value of an ok answer and rejects with the message and code of an error answer', async () => {
    const api = runPreload().exposed.get('onsiteIssuer') as OnsiteIssuerApi;
    expect(await api.status()).toMatchObject({ initialised: false, running: false, suggestedBaseUrl: 'https://127.0.0.1:8443' });
    await expect(api.start()).rejects.toMatchObject({ message: expect.stringMatching(/initialise it first/), code: 'not_initialised' });
    await expect(api.init({ name: 'Harbour\nFAKE' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/control characters/),
    });
    await expect((api.init as (...args: unknown[]) => Promise<unknown>)('Harbour')).rejects.toThrow(/must be an object/);
    expect(await api.init({ name: 'Harbour', baseUrl: 'https://127.0.0.1:9443' })).toMatchObject({
      initialised: true,
      issuer: { name: 'Harbour' },
    });
  });

  it('resolves with the value of an ok answer', async () => {
    const api = runPreload().exposed.get('kiosk') as KioskApi;
    const state = await api.getState();
    expect(state).toEqual(await core.getState());
    expect(await api.scan('not a ticket')).toEqual({ type: 'not_enrolled', message: expect.any(String) });
    expect((await api.setScannerName('Gate B')).scanner.name).toBe('Gate B');
  });

  it('rejects with an Error carrying the message of an error answer', async () => {
    const api = runPreload().exposed.get('kiosk') as KioskApi;
    await expect(api.setScannerName('bad\nname')).rejects.toThrow(/control characters/);
    await expect(api.scan('x'.repeat(5000))).rejects.toThrow(/longer than 4096/);
    await expect((api.scan as (...args: unknown[]) => Promise<unknown>)(42)).rejects.toThrow(/must be a string/);
  });

  it('hands state pushes to the page without the IPC event, and unsubscribes', () => {
    const { exposed, push, rendererListeners } = runPreload();
    const api = exposed.get('kiosk') as KioskApi;
    const received: unknown[][] = [];
    const unsubscribe = api.onStateChange((...args: unknown[]) => received.push(args));
    push({ enrolled: false });
    expect(received).toEqual([[{ enrolled: false }]]);
    unsubscribe();
    push({ enrolled: true });
    expect(received).toHaveLength(1);
    expect(rendererListeners.get(STATE_CHANGED_CHANNEL)?.size).toBe(0);
  });
});
