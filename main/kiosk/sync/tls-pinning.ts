/**
 * TLS for an issuer with a self-signed certificate (docs/protocol.md
 * "Self-signed issuers"; protocol/setup-code.ts `tls_cert_sha256`).
 *
 * The setup code carries the SHA-256 fingerprint of the issuer's certificate.
 * Connections to that issuer accept the server certificate if and only if its
 * fingerprint equals the pin: CA validation is replaced by the pin, not added
 * to it (a self-signed certificate has no CA to validate). The check runs on
 * 'secureConnect', before undici writes a single byte of the request, so a
 * mismatching server never sees a Bearer key or an enrollment token.
 *
 * `rejectUnauthorized: false` alone would accept ANY certificate, and
 * `checkServerIdentity` is not called when it is false: hence the explicit
 * fingerprint check around undici's own connector (which keeps its connect
 * timeout and socket options).
 */
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { isCertificateFingerprint } from '../../../protocol/setup-code.js';

export const PIN_MISMATCH_CODE = 'ERR_TLS_CERT_PIN_MISMATCH';

/** The server presented a certificate other than the pinned one. Messages hold fingerprints only (public data). */
export class CertificatePinMismatchError extends Error {
  override readonly name = 'CertificatePinMismatchError';
  readonly code = PIN_MISMATCH_CODE;

  constructor(
    readonly expected: string,
    readonly actual: string | null,
  ) {
    super(
      `the issuer's TLS certificate does not match the pinned fingerprint (expected ${shortFingerprint(expected)}, got ${actual ? shortFingerprint(actual) : 'no certificate'})`,
    );
  }
}

/** True when the presented fingerprint is the pinned one. Both are OpenSSL-style uppercase hex pairs; compared case-insensitively. Pure. */
export function fingerprintMatches(pinned: string, presented: string | null | undefined): boolean {
  return typeof presented === 'string' && presented.length > 0 && presented.toUpperCase() === pinned.toUpperCase();
}

/**
 * An undici Agent for one pinned issuer: TLS connections succeed only with the
 * certificate whose SHA-256 fingerprint is `fingerprint`. Plain http:// (loopback
 * issuers only, protocol/base-url.ts) involves no certificate and is unaffected.
 */
export function pinnedAgent(fingerprint: string): Agent {
  if (!isCertificateFingerprint(fingerprint)) throw new TypeError('a pinned fingerprint is 32 uppercase hex pairs joined by ":"');
  // No session resumption: every connection shows its certificate, and a resumed
  // session may not expose it to getPeerCertificate().
  const connectBase = buildConnector({ rejectUnauthorized: false, maxCachedSessions: 0 });
  const connect: buildConnector.connector = (options, callback) =>
    connectBase(options, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      if (options.protocol === 'https:') {
        const presented = (socket as TLSSocket).getPeerCertificate().fingerprint256 ?? null;
        if (!fingerprintMatches(fingerprint, presented)) {
          socket.destroy();
          callback(new CertificatePinMismatchError(fingerprint, presented), null);
          return;
        }
      }
      callback(null, socket);
    });
  return new Agent({ connect });
}

function shortFingerprint(value: string): string {
  return value.length > 17 ? `${value.slice(0, 11)}…${value.slice(-5)}` : value;
}
