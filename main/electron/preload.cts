/**
 * The preload: runs sandboxed in the window before the page, and gives the
 * page two objects through contextBridge: `window.kiosk` (the door) and
 * `window.onsiteIssuer` (the bundled issuer on this machine, main/onsite-issuer).
 *
 * A sandboxed preload may only require('electron'): everything else here is a
 * type-only import, erased at compile time. That is why the channel names are
 * repeated below instead of imported; `satisfies KioskChannels` (literal
 * types) turns any drift into a compile error. The two objects `satisfies`
 * the page's bridge types (renderer/kiosk-bridge-types.ts KioskApi,
 * renderer/onsite-issuer-bridge-types.ts OnsiteIssuerApi), so the bridge cannot
 * drift from what the screens expect either.
 *
 * Main answers `{ok: true, value}` or `{ok: false, error: {code, message}}`;
 * here the first resolves to the value and the second rejects with an Error
 * carrying the message and code (an Error cannot cross IPC intact).
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { KioskApi, KioskState } from '../../renderer/kiosk-bridge-types.js';
import type { OnsiteIssuerApi } from '../../renderer/onsite-issuer-bridge-types.js';
import type { Answer } from '../host/kiosk-calls.js';
import type { IssuerAnswer } from './onsite-issuer-calls.js';
import type { IssuerChannels, KioskChannels, STATE_CHANGED_CHANNEL as StateChangedChannel } from '../host/call-channels.js';

const CHANNELS = {
  scan: 'kiosk:scan',
  confirmReEnroll: 'kiosk:confirm-re-enroll',
  cancelReEnroll: 'kiosk:cancel-re-enroll',
  lookupStatus: 'kiosk:lookup-status',
  searchTickets: 'kiosk:search-tickets',
  manualCheckIn: 'kiosk:manual-check-in',
  getState: 'kiosk:get-state',
  setScannerName: 'kiosk:set-scanner-name',
  resetCalibration: 'kiosk:reset-calibration',
  calibrate: 'kiosk:confirm-calibration',
  unlockStaff: 'kiosk:unlock-staff',
  lockStaff: 'kiosk:lock-staff',
  setStaffPin: 'kiosk:set-staff-pin',
  removeStaffPin: 'kiosk:remove-staff-pin',
  setLanguage: 'kiosk:set-language',
  leaveKioskMode: 'kiosk:leave-kiosk-mode',
  setDirection: 'kiosk:set-direction',
  annul: 'kiosk:annul',
  verifyLog: 'kiosk:verify-log',
  configureLanes: 'kiosk:configure-lanes',
  attentionDone: 'kiosk:attention-done',
  overrideAttention: 'kiosk:override-attention',
  confirmIdCheck: 'kiosk:confirm-id-check',
  denyIdCheck: 'kiosk:deny-id-check',
  overrideIdCheck: 'kiosk:override-id-check',
  chooseParty: 'kiosk:choose-party',
  cancelParty: 'kiosk:cancel-party',
  verdictDetails: 'kiosk:verdict-details',
  giveHandout: 'kiosk:give-handout',
} as const satisfies KioskChannels;
const ISSUER_CHANNELS = {
  status: 'issuer:status',
  init: 'issuer:init',
  start: 'issuer:start',
  stop: 'issuer:stop',
  openAdmin: 'issuer:open-admin',
  resetAdminToken: 'issuer:reset-admin-token',
} as const satisfies IssuerChannels;
const STATE_CHANGED: typeof StateChangedChannel = 'kiosk:state-changed';

class KioskCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'KioskCallError';
  }
}

async function call<T>(channel: string, ...args: unknown[]): Promise<T> {
  const answer = (await ipcRenderer.invoke(channel, ...args)) as Answer<T> | IssuerAnswer<T>;
  if (answer.ok) return answer.value;
  throw new KioskCallError(answer.error.message, answer.error.code);
}

const api = {
  scan: (text, read) => (read === undefined ? call(CHANNELS.scan, text) : call(CHANNELS.scan, text, read)),
  confirmReEnroll: () => call(CHANNELS.confirmReEnroll),
  cancelReEnroll: () => call(CHANNELS.cancelReEnroll),
  lookupStatus: (codeOrTid) => call(CHANNELS.lookupStatus, codeOrTid),
  searchTickets: (query) => call(CHANNELS.searchTickets, query),
  manualCheckIn: (tid, reason, people) =>
    people === undefined ? call(CHANNELS.manualCheckIn, tid, reason) : call(CHANNELS.manualCheckIn, tid, reason, people),
  getState: () => call(CHANNELS.getState),
  setScannerName: (name) => call(CHANNELS.setScannerName, name),
  resetCalibration: () => call(CHANNELS.resetCalibration),
  calibrate: (keep) => call(CHANNELS.calibrate, keep),
  unlockStaff: (pin) => call(CHANNELS.unlockStaff, pin),
  lockStaff: () => call(CHANNELS.lockStaff),
  removeStaffPin: (staffId) => call(CHANNELS.removeStaffPin, staffId),
  setStaffPin: (pin, person) => (person ? call(CHANNELS.setStaffPin, pin, person) : call(CHANNELS.setStaffPin, pin)),
  setLanguage: (primary, secondary) => call(CHANNELS.setLanguage, primary, secondary),
  leaveKioskMode: () => call(CHANNELS.leaveKioskMode),
  setDirection: (direction) => call(CHANNELS.setDirection, direction),
  annul: (tid, reason) => call(CHANNELS.annul, tid, reason),
  verifyLog: () => call(CHANNELS.verifyLog),
  configureLanes: (request) => call(CHANNELS.configureLanes, request),
  attentionDone: () => call(CHANNELS.attentionDone),
  overrideAttention: () => call(CHANNELS.overrideAttention),
  confirmIdCheck: () => call(CHANNELS.confirmIdCheck),
  denyIdCheck: () => call(CHANNELS.denyIdCheck),
  overrideIdCheck: () => call(CHANNELS.overrideIdCheck),
  chooseParty: (people: number) => call(CHANNELS.chooseParty, people),
  cancelParty: () => call(CHANNELS.cancelParty),
  verdictDetails: (decidedAt) => call(CHANNELS.verdictDetails, decidedAt),
  giveHandout: (decidedAt, item) => call(CHANNELS.giveHandout, decidedAt, item),
  onStateChange(listener) {
    // The page gets the state only, never the IPC event (it would expose ipcRenderer's sender).
    const forward = (_event: IpcRendererEvent, state: KioskState): void => listener(state);
    ipcRenderer.on(STATE_CHANGED, forward);
    return () => {
      ipcRenderer.removeListener(STATE_CHANGED, forward);
    };
  },
} satisfies KioskApi;

const onsiteIssuer = {
  status: () => call(ISSUER_CHANNELS.status),
  init: (request) => call(ISSUER_CHANNELS.init, request),
  start: () => call(ISSUER_CHANNELS.start),
  stop: () => call(ISSUER_CHANNELS.stop),
  openAdmin: () => call(ISSUER_CHANNELS.openAdmin),
  resetAdminToken: () => call(ISSUER_CHANNELS.resetAdminToken),
} satisfies OnsiteIssuerApi;

contextBridge.exposeInMainWorld('kiosk', api);
contextBridge.exposeInMainWorld('onsiteIssuer', onsiteIssuer);
