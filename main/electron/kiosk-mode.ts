/**
 * Leaving kiosk mode (the Electron window's full screen without frame or
 * menu) is a staff function (docs/kiosk.md "Staff PIN"). Electron-free, so
 * the policy is tested in plain Node; main/electron/main.ts only hands its
 * window over.
 *
 * - The staff menu's "Leave kiosk mode" (KioskApi leaveKioskMode, guarded by
 *   the core) calls the exit given here: the window leaves kiosk mode and
 *   full screen, and the action is gone from the menu.
 * - Closing the window in kiosk mode (Alt+F4, the window manager) is refused
 *   unless staff are unlocked; the app quitting by itself (a signal, a fatal
 *   error, the shutdown) is never held up.
 */
import type { KioskCall } from '../../protocol/access.js';
import type { StaffLocked } from '../kiosk/kiosk-api.js';

/** The few window methods used (Electron's BrowserWindow has them). */
export interface KioskModeWindow {
  setKiosk(flag: boolean): void;
  setFullScreen(flag: boolean): void;
  isDestroyed(): boolean;
}

export interface KioskModeCore {
  setKioskModeExit(exit: (() => void | Promise<void>) | null): void;
  /** The kiosk's guard: null when whoever is at the kiosk may make `call` now (protocol/access.ts). */
  requireStaff(call: KioskCall): StaffLocked | null;
}

export class KioskModeGuard {
  private inKioskMode: boolean;
  /** The app itself is quitting: the window may close whatever the staff state. */
  private quitting = false;

  constructor(
    private readonly core: KioskModeCore,
    private readonly window: KioskModeWindow,
    kioskMode: boolean,
  ) {
    this.inKioskMode = kioskMode;
    if (kioskMode) core.setKioskModeExit(() => this.leave());
  }

  get kioskMode(): boolean {
    return this.inKioskMode;
  }

  /** The app quits on its own (signal, shutdown): closing is no longer a staff question. */
  quit(): void {
    this.quitting = true;
  }

  /** Whether a request to close the window may go ahead now (false: keep it open). */
  mayClose(): boolean {
    if (!this.inKioskMode || this.quitting) return true;
    return this.core.requireStaff('closeKioskWindow') === null;
  }

  private leave(): void {
    if (!this.window.isDestroyed()) {
      this.window.setKiosk(false);
      this.window.setFullScreen(false);
    }
    this.inKioskMode = false;
    this.core.setKioskModeExit(null);
  }
}
