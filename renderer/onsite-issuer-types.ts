/**
 * The on-site issuer as the kiosk screens see it: `window.onsiteIssuer`, put
 * there by the Electron preload only (main/electron/preload.cts; the browser
 * host has none, and the screens then show nothing of it). The shapes mirror
 * main/electron/issuer-ipc-handlers.ts OnsiteIssuerApi, the part the Setup
 * screen uses. DOM-free, like kiosk-types.ts.
 */

export interface OnsiteIssuerStatusView {
  initialised: boolean;
  running: boolean;
  issuer: { name: string; baseUrl: string } | null;
  /** Where scanners reach it, one HTTPS URL per LAN address (running only). */
  urls: string[];
  /** What init uses without a base URL (not initialised only). */
  suggestedBaseUrl: string | null;
  warnings: string[];
}

export interface OnsiteIssuerBridge {
  status(): Promise<OnsiteIssuerStatusView>;
  /** Gives this machine's issuer its name and base URL (ticket-issuer init), once. */
  init(request: { name: string; baseUrl?: string }): Promise<OnsiteIssuerStatusView>;
  start(): Promise<OnsiteIssuerStatusView>;
  /** Opens the admin dashboard in a window of its own (events, tickets, setup codes). */
  openAdmin(): Promise<{ url: string }>;
  /** A new admin dashboard sign-in token, to show once; the earlier one stops working. */
  resetAdminToken(): Promise<{ adminToken: string; createdAt: string }>;
}
