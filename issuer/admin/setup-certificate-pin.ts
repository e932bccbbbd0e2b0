/**
 * Which TLS certificate a setup code made by `ticket-issuer scanner setup`
 * pins (docs/issuer.md "TLS"; docs/protocol.md "Self-signed issuers"). The
 * dashboard's codes pin what its own server presents instead (issuer/server.ts).
 */
import { certificateHostnames, ensureSelfSignedCertificate, lastServingMode } from '../tls-certificate.js';
import type { IssuerContext } from './issuer-context.js';

/**
 * The fingerprint a setup code should pin: the issuer's self-signed
 * certificate (made now if `serve` has not run yet, so the code is usable at
 * once). Not for a plain-HTTP base URL, nor with --no-cert-pin, nor by default
 * when the last `serve` presented another certificate (--tls-cert) or none
 * (--plain-http behind a TLS proxy): a kiosk pinning a certificate it never
 * sees could not connect at all. --cert-pin pins anyway.
 *
 * `certPin`: true with --cert-pin, false with --no-cert-pin, undefined with
 * neither. `note` says why there is no pin, for the operator.
 */
export async function setupCertificatePin(context: IssuerContext, certPin: boolean | undefined): Promise<{ pin?: string; note?: string }> {
  if (certPin === false || !context.info.base_url.startsWith('https:')) return {};
  const lastMode = lastServingMode(context.dataDir.tlsDir);
  if (certPin === undefined && (lastMode === 'certificate' || lastMode === 'plain-http')) {
    const how = lastMode === 'certificate' ? 'with --tls-cert' : 'with --plain-http (behind a TLS proxy)';
    return {
      note: `No certificate pin: the issuer was last served ${how}, so kiosks check its certificate the usual way (--cert-pin pins the self-signed one anyway).`,
    };
  }
  const { fingerprint } = await ensureSelfSignedCertificate(context.dataDir.tlsDir, certificateHostnames(context.info.base_url, '0.0.0.0'));
  return { pin: fingerprint };
}
