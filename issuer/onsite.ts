/**
 * The issuer embedded in another program's process: the kiosk app's on-site
 * issuer (main/onsite-issuer/; docs/issuer.md "On-site, inside the kiosk
 * app"). The one entry point such a program imports, so it depends on these
 * calls and not on the issuer's modules.
 *
 * Each call does what a `ticket-issuer` command does, on a data directory the
 * caller owns: `init`, `admin-token reset`, and `serve` (the same
 * startServer). Failures of the admin operations are AdminErrors with the
 * catalogue's codes (issuer/error-catalogue.ts).
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { initIssuer } from './admin/init.js';
import { withDatabase } from './admin/issuer-context.js';
import { isInitialised, resolveDataDir, type DataDir } from './data-dir.js';
import { createLogger } from './logging.js';
import { startServer, type RunningServer } from './server.js';
import { resetAdminToken } from './services/admin-credential.js';
import { findAdminToken } from './store/admin-token.js';
import { getIssuerInfo } from './store/issuer-info.js';
import { certificateFingerprint, certificateHostnames, ensureSelfSignedCertificate } from './tls-certificate.js';

export { MAX_LABEL_LENGTH, parseBaseUrl, parseInteger, parseLabel } from './admin/validators.js';
export { AdminError, type AdminErrorCode } from './error-catalogue.js';
export { DEFAULT_PORT, defaultListen } from './listen-defaults.js';
export { createLogger } from './logging.js';
export type { RunningServer } from './server.js';

export interface IssuerIdentity {
  name: string;
  baseUrl: string;
}

export interface EmbeddedServeOptions {
  host: string;
  port: number;
  /** Check-in + status requests per minute per scanner key (`serve --scanner-rpm`). */
  scannerRpm: number;
  /** Enrollment requests per minute per client IP (`serve --enroll-rpm`); default the issuer's. */
  enrollRpm?: number;
  logger: Logger;
}

/** One issuer data directory, as the embedding program sees it. */
export class EmbeddedIssuer {
  private readonly dataDir: DataDir;

  constructor(dataDir: string) {
    this.dataDir = resolveDataDir(dataDir);
  }

  /** The data directory's absolute path. */
  get root(): string {
    return this.dataDir.root;
  }

  /** The issuer's name and base URL, or null before init (also when an init did not finish). */
  async identity(): Promise<IssuerIdentity | null> {
    if (!isInitialised(this.dataDir)) return null;
    try {
      const info = await withDatabase(this.dataDir, (database) => getIssuerInfo(database.read));
      return { name: info.name, baseUrl: info.base_url };
    } catch {
      return null; // an empty database file: init did not finish
    }
  }

  /**
   * `ticket-issuer init`: the issuer identity and first signing key. The
   * caller validates the values (parseLabel, parseBaseUrl); refuses a data
   * dir that already holds an issuer (AdminError ALREADY_INITIALISED).
   */
  async init(baseUrl: string, name: string, now: Date): Promise<void> {
    await initIssuer(this.dataDir, baseUrl, name, now);
  }

  /** The admin dashboard has a sign-in token (made by resetAdminToken or `ticket-issuer admin-token reset`). */
  async hasAdminToken(): Promise<boolean> {
    return withDatabase(this.dataDir, async (database) => (await findAdminToken(database.read)) !== undefined);
  }

  /**
   * `ticket-issuer admin-token reset`: a new admin dashboard token, replacing
   * any earlier one at once, also while serving. Only its hash is stored.
   */
  resetAdminToken(now: Date): Promise<{ token: string; createdAt: string }> {
    return withDatabase(this.dataDir, (database) => database.write((db) => resetAdminToken(db, now)));
  }

  /** The self-signed certificate kiosks pin, once it exists: its SHA-256 fingerprint and the names it is made out to. */
  certificate(): { fingerprint: string; names: string[] } | null {
    let pem: string;
    try {
      pem = fs.readFileSync(path.join(this.dataDir.tlsDir, 'cert.pem'), 'utf8');
    } catch {
      return null;
    }
    return { fingerprint: certificateFingerprint(pem), names: certificateNames(pem) };
  }

  /**
   * The self-signed certificate `serve` presents, made once and kept in tls/
   * (kiosks pin it, so it is never replaced here). The first time, it names
   * `host`'s and the base URL's names, as `serve` does, and `extraNames`.
   */
  async ensureCertificate(identity: IssuerIdentity, host: string, extraNames: readonly string[]): Promise<void> {
    await ensureSelfSignedCertificate(this.dataDir.tlsDir, [...certificateHostnames(identity.baseUrl, host), ...extraNames]);
  }

  /**
   * `ticket-issuer serve` on this data dir, HTTPS with the self-signed
   * certificate (ensureCertificate first). The caller owns the process's
   * signals and stops the server with close().
   */
  serve(options: EmbeddedServeOptions): Promise<RunningServer> {
    return startServer({
      dataDir: this.dataDir.root,
      host: options.host,
      port: options.port,
      handleSignals: false,
      logger: options.logger,
      scannerRpm: options.scannerRpm,
      ...(options.enrollRpm === undefined ? {} : { enrollRpm: options.enrollRpm }),
      // Writes on this thread, not a database thread of their own: a venue laptop's load does not need one
      // (docs/benchmarks.md: the p99 goal is met either way), and inside the packaged app the thread's script
      // would load from the asar archive, which cannot be tried on this machine (docs/issuer.md "On-site").
      sqliteThread: false,
    });
  }
}

/**
 * The issuer's request log as JSON lines appended to `file` (0600: it holds
 * client addresses), through the issuer's own logger, which redacts secrets.
 */
export function issuerFileLogger(file: string, level = 'info'): Logger {
  return createLogger({ level, stream: pino.destination({ dest: file, append: true, mkdir: true, mode: 0o600, sync: false }) });
}

/** The subject alternative names of a PEM certificate, as plain names and addresses. */
export function certificateNames(pem: string): string[] {
  const san = new X509Certificate(pem).subjectAltName ?? '';
  return san
    .split(',')
    .map((entry) => entry.trim().replace(/^(DNS|IP Address):/, ''))
    .filter((name) => name !== '');
}
