/**
 * The kiosk's bridge types as the renderer sees them: exactly the core's
 * KioskApi (main/kiosk/kiosk-api.ts, types only, no Node code), so the bridge
 * cannot drift. Both hosts' page-side objects `satisfies` KioskApi from here:
 * the Electron preload (main/electron/preload.cts) and the web host's script
 * (main/web-host/host-script.ts). DOM-free, so pure modules and Node tests can use it.
 */
export type * from '../main/kiosk/kiosk-api.js';
export type { IsoDateTime, RefusalReason, TicketState, TicketStatus, Verdict } from '../protocol/index.js';
