/**
 * The script the web host serves as /kiosk-host.js: it defines
 * `window.kiosk`, the renderer's KioskApi, over fetch (POST
 * /api/kiosk/<method>) and server-sent events (GET /api/kiosk/events).
 *
 * Written as one self-contained function so the compiler checks it against
 * the renderer's KioskApi type; the server sends its source text, called with
 * `window`. It must not refer to anything outside its own body.
 */
import type { KioskApi, KioskState } from '../../renderer/kiosk-bridge-types.js';

/** The few browser globals the script uses (the main build has no DOM types). */
export interface HostWindow {
  fetch(
    url: string,
    init: { method: 'POST'; headers: Record<string, string>; body: string; cache: 'no-store'; credentials: 'same-origin' },
  ): Promise<{
    status: number;
    json(): Promise<unknown>;
  }>;
  EventSource: new (url: string) => {
    readyState: number;
    addEventListener(type: 'state', listener: (event: { data: string }) => void): void;
    addEventListener(type: 'error', listener: () => void): void;
    close(): void;
  };
  location: { reload(): void };
  setTimeout(callback: () => void, ms: number): unknown;
  Event: new (type: string) => unknown;
  dispatchEvent(event: unknown): boolean;
  kiosk?: KioskApi;
}

export function installKioskHost(win: HostWindow): void {
  type Envelope = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

  async function call<T>(method: string, ...args: unknown[]): Promise<T> {
    const response = await win.fetch('/api/kiosk/' + method, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
      cache: 'no-store',
      credentials: 'same-origin',
    });
    // No session (the host's secret was renewed, or the page was opened without a launch URL):
    // reloading shows the host's page that says how to get a new launch URL.
    if (response.status === 401) win.location.reload();
    let answer: Envelope;
    try {
      answer = (await response.json()) as Envelope;
    } catch {
      throw new Error('The kiosk host gave an answer that is not JSON (HTTP ' + response.status + ').');
    }
    if (answer && answer.ok === true) return answer.value as T;
    const error = new Error(answer && answer.ok === false ? answer.error.message : 'The kiosk host gave an unexpected answer.');
    error.name = 'KioskCallError';
    throw error;
  }

  // One event stream, opened by the first subscriber and closed with the last; EventSource reconnects by itself.
  const listeners = new Set<(state: KioskState) => void>();
  let events: InstanceType<HostWindow['EventSource']> | null = null;

  function openEvents(): void {
    const source = new win.EventSource('/api/kiosk/events');
    events = source;
    source.addEventListener('state', (event) => {
      const state = JSON.parse(event.data) as KioskState;
      for (const each of [...listeners]) each(state);
    });
    // EventSource retries a dropped connection by itself, but gives up on an error status (401, 429).
    // Then try again in a while: a call first, which reloads the page if the session is gone.
    source.addEventListener('error', () => {
      if (source.readyState !== 2) return;
      win.setTimeout(() => {
        if (events !== source || listeners.size === 0) return;
        call('getState').then(
          () => events === source && openEvents(),
          () => events === source && openEvents(),
        );
      }, 5000);
    });
  }

  const api = {
    scan: (text, read) => (read === undefined ? call('scan', text) : call('scan', text, read)),
    confirmReEnroll: () => call('confirmReEnroll'),
    cancelReEnroll: () => call('cancelReEnroll'),
    lookupStatus: (codeOrTid) => call('lookupStatus', codeOrTid),
    searchTickets: (query) => call('searchTickets', query),
    manualCheckIn: (tid, reason, people) =>
      people === undefined ? call('manualCheckIn', tid, reason) : call('manualCheckIn', tid, reason, people),
    getState: () => call('getState'),
    setScannerName: (name) => call('setScannerName', name),
    resetCalibration: () => call('resetCalibration'),
    calibrate: (keep) => call('calibrate', keep),
    unlockStaff: (pin) => call('unlockStaff', pin),
    lockStaff: () => call('lockStaff'),
    removeStaffPin: (staffId) => call('removeStaffPin', staffId),
    setStaffPin: (pin, person) => (person ? call('setStaffPin', pin, person) : call('setStaffPin', pin)),
    setLanguage: (primary, secondary) => call('setLanguage', primary, secondary),
    leaveKioskMode: () => call('leaveKioskMode'),
    setDirection: (direction) => call('setDirection', direction),
    annul: (tid, reason) => call('annul', tid, reason),
    verifyLog: () => call('verifyLog'),
    configureLanes: (request) => call('configureLanes', request),
    attentionDone: () => call('attentionDone'),
    overrideAttention: () => call('overrideAttention'),
    confirmIdCheck: () => call('confirmIdCheck'),
    denyIdCheck: () => call('denyIdCheck'),
    overrideIdCheck: () => call('overrideIdCheck'),
    chooseParty: (people) => call('chooseParty', people),
    cancelParty: () => call('cancelParty'),
    verdictDetails: (decidedAt) => call('verdictDetails', decidedAt),
    giveHandout: (decidedAt, item) => call('giveHandout', decidedAt, item),
    onStateChange(listener) {
      const subscriber = (state: KioskState): void => listener(state);
      listeners.add(subscriber);
      if (!events) openEvents();
      return () => {
        listeners.delete(subscriber);
        if (listeners.size === 0 && events) {
          events.close();
          events = null;
        }
      };
    },
  } satisfies KioskApi;

  Object.defineProperty(win, 'kiosk', { value: Object.freeze(api), enumerable: true });
  win.dispatchEvent(new win.Event('kiosk-ready'));
}

/** The file served as /kiosk-host.js. */
export function hostScriptSource(): string {
  return `'use strict';\n(${installKioskHost.toString()})(window);\n`;
}
