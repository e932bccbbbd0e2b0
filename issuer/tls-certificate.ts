/**
 * The issuer's TLS certificate in its data dir (docs/issuer.md "TLS"): the
 * self-signed certificate `serve` presents by default, made once and kept in
 * `<data>/tls/` (key 0600), whose SHA-256 fingerprint kiosks pin; and the
 * record of how `serve` last presented itself, which `scanner setup` reads.
 * Apart from issuer/server.ts so that the admin operations use it without
 * loading the HTTP server.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { writePrivateFile } from './data-dir.js';

const SELF_SIGNED_VALIDITY_DAYS = 5 * 365;

export interface TlsMaterial {
  key: string;
  cert: string;
  fingerprint: string;
}

export const certificateFingerprint = (certPem: string): string => new crypto.X509Certificate(certPem).fingerprint256;

/** Loads `<tlsDir>/cert.pem` and `key.pem`, generating them the first time. */
export async function ensureSelfSignedCertificate(tlsDir: string, hostnames: readonly string[]): Promise<TlsMaterial> {
  const certFile = path.join(tlsDir, 'cert.pem');
  const keyFile = path.join(tlsDir, 'key.pem');
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    fs.mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
    const names = [...new Set(hostnames)];
    const notBeforeDate = new Date(Date.now() - 3600_000); // an hour of slack for scanner clocks behind ours
    // Loaded only here: selfsigned takes about 0.2 s to load, and most commands never make a certificate.
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: names[0] ?? 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate: new Date(notBeforeDate.getTime() + SELF_SIGNED_VALIDITY_DAYS * 86400_000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: names.map((name) => (net.isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
      ],
    });
    writePrivateFile(keyFile, pems.private);
    // The certificate is public (scanners pin its fingerprint), but nothing in the data dir needs to be readable by others.
    writePrivateFile(certFile, pems.cert);
  }
  const cert = fs.readFileSync(certFile, 'utf8');
  return { key: fs.readFileSync(keyFile, 'utf8'), cert, fingerprint: certificateFingerprint(cert) };
}

/**
 * How `serve` last presented itself, recorded in tls/serving.json when it
 * starts listening. `scanner setup` runs in another process and reads it, so
 * a setup code pins the self-signed certificate only when kiosks will really
 * see it (not behind a TLS proxy, not with a CA-signed certificate).
 */
export type ServingMode = 'self-signed' | 'certificate' | 'plain-http';
const SERVING_RECORD = 'serving.json';

export function recordServingMode(tlsDir: string, mode: ServingMode, now = new Date()): void {
  writePrivateFile(path.join(tlsDir, SERVING_RECORD), `${JSON.stringify({ mode, since: now.toISOString() })}\n`);
}

/** The mode of the last `serve`, or null when it never ran (or the record is unreadable: then nothing is assumed). */
export function lastServingMode(tlsDir: string): ServingMode | null {
  try {
    const { mode } = JSON.parse(fs.readFileSync(path.join(tlsDir, SERVING_RECORD), 'utf8')) as { mode?: unknown };
    return mode === 'self-signed' || mode === 'certificate' || mode === 'plain-http' ? mode : null;
  } catch {
    return null;
  }
}

export function certificateHostnames(baseUrl: string, host: string): string[] {
  const names = [new URL(baseUrl).hostname.replace(/^\[(.*)\]$/, '$1'), 'localhost', '127.0.0.1', '::1'];
  if (host !== '0.0.0.0' && host !== '::') names.push(host);
  return names;
}
