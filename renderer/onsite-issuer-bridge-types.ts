/**
 * The on-site issuer's bridge: `window.onsiteIssuer`, put there by the
 * Electron preload only (main/electron/preload.cts; the browser host has
 * none, and the screens then show nothing of it). The one definition of this
 * API: the preload `satisfies` it, and main's call table
 * (main/electron/onsite-issuer-calls.ts) takes its call names and answer types
 * from it. DOM-free, like kiosk-bridge-types.ts.
 */

/**
 * The part of the issuer's status the page reads. Main sends the whole
 * status (main/onsite-issuer/onsite-issuer.ts OnsiteIssuerStatus), which must
 * fit this shape (a compile error otherwise).
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

/** What `ticket-issuer init` needs; main checks every field before the issuer sees it. */
export interface OnsiteIssuerInitRequest {
  /** The issuer name kiosks show, e.g. "Harbour Festival". */
  name: string;
  /** What scanners reach, e.g. https://192.168.1.20:8443. Default: https://<first LAN address>:<port>. */
  baseUrl?: string;
  /** The port of the default base URL (default 8443). Ignored when baseUrl is given. */
  port?: number;
}

/** What the page may ask of the on-site issuer. */
export interface OnsiteIssuerApi {
  status(): Promise<OnsiteIssuerStatusView>;
  /** Gives this machine's issuer its name and base URL (ticket-issuer init), once; refused when it has one. */
  init(request: OnsiteIssuerInitRequest): Promise<OnsiteIssuerStatusView>;
  start(): Promise<OnsiteIssuerStatusView>;
  stop(): Promise<OnsiteIssuerStatusView>;
  /** Opens the admin dashboard in a window of its own (events, tickets, setup codes); the issuer must be running. */
  openAdmin(): Promise<{ url: string }>;
  /** A new admin dashboard sign-in token, to show once; the earlier one stops working. */
  resetAdminToken(): Promise<{ adminToken: string; createdAt: string }>;
}
