/**
 * The renderer's only door to the kiosk: the `KioskApi` object at
 * `window.kiosk`, put there by the Electron preload (contextBridge) or by the
 * web host's script. The types live in ./kiosk-bridge-types.ts (DOM-free, so pure
 * modules and Node tests can use them); this file holds the DOM side.
 */
import type { KioskApi } from './kiosk-bridge-types.js';
import type { OnsiteIssuerApi } from './onsite-issuer-bridge-types.js';

declare global {
  interface Window {
    kiosk?: KioskApi;
    /** Electron only (main/electron/preload.cts): this machine's on-site issuer. */
    onsiteIssuer?: OnsiteIssuerApi;
  }
}

/** A host that defines `window.kiosk` after this bundle has started dispatches this event on `window`. */
export const KIOSK_READY_EVENT = 'kiosk-ready';

/**
 * Resolves with `window.kiosk` as soon as it exists: at once when the host
 * defined it before the bundle ran (the preload does), otherwise at the
 * `kiosk-ready` event. Null after `timeoutMs`: the screen then says the
 * kiosk service is not running instead of waiting forever.
 */
export function waitForKiosk(win: Window, timeoutMs = 10_000): Promise<KioskApi | null> {
  if (win.kiosk) return Promise.resolve(win.kiosk);
  return new Promise((resolve) => {
    const timer = win.setTimeout(() => done(null), timeoutMs);
    const onReady = (): void => done(win.kiosk ?? null);
    function done(api: KioskApi | null): void {
      win.clearTimeout(timer);
      win.removeEventListener(KIOSK_READY_EVENT, onReady);
      resolve(api);
    }
    win.addEventListener(KIOSK_READY_EVENT, onReady);
  });
}

export type Attempt<T> = { ok: true; value: T } | { ok: false; error: { message: string } };

/** A bridge call that rejects (IPC broken, host gone) becomes a value the screens can show, never an unhandled rejection. */
export async function attempt<T>(call: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
  }
}
