/**
 * The REAL issuer (issuer/server.ts startServer) on a loopback port, over a
 * temp data directory filled by test/support/issuer-fixture.ts. Admin changes
 * go through the issuer's own store and admin functions (the code the CLI
 * runs) on a separate SQLite connection, as `ticket-issuer` in another process
 * would make them while `serve` runs.
 *
 * The base URL names the port (the kiosk checks that `iss` is the URL it
 * fetched discovery from), so the port is chosen before the data dir is made
 * and reused when the issuer is restarted.
 */
import { decodeSetupCode, encodeSetupCode } from '../../../../protocol/setup-code.js';
import { rotateSigningKey } from '../../../../issuer/admin/key-rotation.js';
import { newIdFactory } from '../../../../issuer/admin/ids.js';
import { issueTickets } from '../../../../issuer/admin/issuance.js';
import { startServer, type RunningServer } from '../../../../issuer/server.js';
import { loadSigningKey, signEd25519Node } from '../../../../issuer/signing.js';
import { encodeStaffBadge } from '../../../../protocol/staff-badge.js';
import type { StaffRole } from '../../../../protocol/access.js';
import { scanLogByOutcome, type CheckinRow } from '../../../../issuer/store/checkins.js';
import type { ScanLogRow } from '../../../../issuer/store/log-rows.js';
import type { EventRow } from '../../../../issuer/store/events.js';
import { revokeApiKey } from '../../../../issuer/store/scanners.js';
import { activeKid } from '../../../../issuer/store/signing-keys.js';
import { revokeTicket } from '../../../../issuer/store/tickets.js';
import { createIssuerFixture, type IssuerFixture } from '../../../support/issuer-fixture.js';
import { freePort } from '../../../support/free-port.js';
import { captureLog, type CapturedLog } from '../../../support/unit/log-capture.js';

export interface RealIssuerOptions {
  /** Serve HTTPS with the issuer's self-signed certificate (its default) instead of plain HTTP. */
  tls?: boolean;
  /** Check-in + status requests per minute per scanner key (issuer default 600). */
  scannerRpm?: number;
}

export class RealIssuer {
  readonly log: CapturedLog = captureLog();
  private running: RunningServer | null = null;
  /** SHA-256 fingerprint of the served certificate (HTTPS only), known once started. */
  fingerprint: string | null = null;

  private constructor(
    readonly fx: IssuerFixture,
    readonly port: number,
    readonly event: EventRow,
    private readonly options: RealIssuerOptions,
  ) {}

  static async create(options: RealIssuerOptions = {}): Promise<RealIssuer> {
    const port = await freePort();
    const fx = createIssuerFixture({ baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, name: 'Harbour Tickets' });
    return new RealIssuer(fx, port, fx.createEvent({ name: 'Autumn Festival' }), options);
  }

  get url(): string {
    return this.fx.baseUrl;
  }

  async start(): Promise<this> {
    const server = await startServer({
      dataDir: this.fx.dataDir.root,
      host: '127.0.0.1',
      port: this.port,
      plainHttp: !this.options.tls,
      logger: this.log.logger,
      handleSignals: false,
      ...(this.options.scannerRpm === undefined ? {} : { scannerRpm: this.options.scannerRpm }),
    });
    this.running = server;
    this.fingerprint = server.fingerprint;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.running;
    this.running = null;
    await server?.close();
  }

  /** A fresh single-use setup code for `eid` (default: the issuer's event), optionally pinning a certificate. */
  setupCode(options: { eid?: string; pin?: string; gateId?: string } = {}): { code: string; tokenId: string } {
    const setup = this.fx.createSetupToken(options.eid ?? this.event.eid, options.gateId === undefined ? {} : { gateId: options.gateId });
    if (options.pin === undefined) return { code: setup.setupCode, tokenId: setup.tokenId };
    return { code: encodeSetupCode({ ...decodeSetupCode(setup.setupCode), tls_cert_sha256: options.pin }), tokenId: setup.tokenId };
  }

  /** A ticket signed with the fixture's first key. */
  issueTicket(options: { eid?: string; holderName?: string; expiresAt?: Date } = {}): { tid: string; code: string } {
    const ticket = this.fx.issueTicket(options.eid ?? this.event.eid, {
      ...(options.holderName === undefined ? {} : { holderName: options.holderName }),
      ...(options.expiresAt === undefined ? {} : { expiresAt: options.expiresAt }),
    });
    return { tid: ticket.tid, code: ticket.qr };
  }

  /** Tickets signed with the ACTIVE key (after a rotation, the new one), as `ticket issue` does. */
  async issueWithActiveKey(count: number, eid = this.event.eid): Promise<{ tid: string; code: string }[]> {
    const db = this.fx.db;
    const event = db.prepare('SELECT * FROM events WHERE eid = ?').get(eid) as EventRow;
    const key = loadSigningKey(this.fx.dataDir.keysDir, await activeKid(this.fx.sql));
    const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
    const specs = Array.from({ length: count }, (_, i) => ({ holderName: `Guest ${i + 1}`, ticketType: 'Standard', exp }));
    const tickets = await issueTickets(this.fx.database, { iss: this.url, event, key, nextId: newIdFactory(), now: new Date() }, specs);
    return tickets.map((ticket) => ({ tid: ticket.tid, code: ticket.qr }));
  }

  /** A staff badge for this event signed with the ACTIVE key, as `staff badge issue` makes one (valid for an hour). */
  async staffBadge(role: StaffRole, sid: string, name = 'Kim Lee'): Promise<string> {
    const key = loadSigningKey(this.fx.dataDir.keysDir, await activeKid(this.fx.sql));
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      v: 1 as const,
      iss: this.url,
      kid: key.kid,
      sid,
      name,
      role,
      eids: [this.event.eid],
      iat: now,
      nbf: now - 60,
      exp: now + 3600,
    };
    return encodeStaffBadge(payload, (message) => signEd25519Node(message, key.privateKey));
  }

  async revokeTicket(tid: string): Promise<void> {
    if (!(await revokeTicket(this.fx.sql, tid, 'refund', new Date().toISOString()))) throw new Error(`no ticket ${tid}`);
  }

  async revokeScanner(apiKeyId: string): Promise<void> {
    if (!(await revokeApiKey(this.fx.sql, apiKeyId, new Date().toISOString()))) throw new Error(`no scanner key ${apiKeyId}`);
  }

  /** `ticket-issuer key rotate`: the new kid. */
  async rotateKey(): Promise<string> {
    return (await rotateSigningKey(this.fx.dataDir, this.fx.database, new Date())).kid;
  }

  checkin(tid: string): CheckinRow | undefined {
    return this.fx.db.prepare('SELECT * FROM checkins WHERE tid = ?').get(tid) as CheckinRow | undefined;
  }

  checkinCount(): number {
    return (this.fx.db.prepare('SELECT COUNT(*) AS n FROM checkins').get() as { n: number }).n;
  }

  scanLog(outcome: string): Promise<ScanLogRow[]> {
    return scanLogByOutcome(this.fx.sql, outcome);
  }

  tokenUsed(tokenId: string): boolean {
    return (
      (this.fx.db.prepare('SELECT used_at FROM enrollment_tokens WHERE token_id = ?').get(tokenId) as { used_at: string | null })
        .used_at !== null
    );
  }

  async cleanup(): Promise<void> {
    await this.stop();
    this.fx.cleanup();
  }
}
