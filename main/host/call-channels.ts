/**
 * The page's calls, by name, and their IPC channel names between the
 * Electron main process and the preload, in one place. The keys are the call
 * names both hosts accept (the web host as POST /api/kiosk/<name>); the values
 * are Electron's channels. Runs anywhere (no imports), which is why it lives
 * in main/host/ and not in main/electron/ (only files that import electron do).
 *
 * The sandboxed preload cannot import this file at runtime (it may only
 * require('electron')), so it repeats the object and checks it with
 * `satisfies typeof KIOSK_CHANNELS`: the literal types make any drift a
 * compile error.
 */

/** renderer → main, one per KioskApi method: ipcRenderer.invoke / ipcMain.handle. */
export const KIOSK_CHANNELS = {
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
} as const;

/** renderer → main, the on-site issuer (main/onsite-issuer), one per OnsiteIssuerApi method (onsite-issuer-calls.ts). */
export const ISSUER_CHANNELS = {
  status: 'issuer:status',
  init: 'issuer:init',
  start: 'issuer:start',
  stop: 'issuer:stop',
  openAdmin: 'issuer:open-admin',
  resetAdminToken: 'issuer:reset-admin-token',
} as const;

/** main → renderer, the only push: the new KioskState after every change (webContents.send). */
export const STATE_CHANGED_CHANNEL = 'kiosk:state-changed' as const;

export type KioskChannels = typeof KIOSK_CHANNELS;
export type IssuerChannels = typeof ISSUER_CHANNELS;
