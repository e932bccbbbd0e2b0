/**
 * The kiosk page's Content-Security-Policy, sent by both hosts: the Electron
 * shell on every response of its session and of kiosk:// (main/electron/
 * security.ts, app-scheme.ts), the web host on every response
 * (main/web-host/server.ts). One string, so the two cannot drift.
 *
 * The renderer loads only its own files: no inline script or style, no eval,
 * no remote anything. renderer/index.html carries the same policy as a meta tag
 * (file:// responses may not pass through webRequest). The header also
 * carries form-action and frame-ancestors; browsers ignore the latter in a meta tag.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "object-src 'none'",
  // No frames at all: the page has none, and a frame is where a navigation could hide.
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
