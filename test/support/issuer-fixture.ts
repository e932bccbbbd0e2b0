/**
 * A real issuer data directory in a temp folder, filled directly with SQL on
 * a connection of the test's own and issuer/signing (not the CLI, so these
 * tests need no build; synchronous, so a test sets up in plain statements):
 * issuer info, an active signing key, events, signed tickets, setup tokens
 * and enrolled scanner keys.
 */
import { searchName } from '../../protocol/search-name.js';
import type { EntryPolicy } from '../../protocol/door.js';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ulid } from 'ulid';
import { encodeSetupCode } from '../../protocol/setup-code.js';
import { encodeTicketCode } from '../../protocol/ticket-code.js';
import { PROTOCOL_VERSION } from '../../protocol/types.js';
import { createDataDir, resolveDataDir, type DataDir } from '../../issuer/data-dir.js';
import { hashSecret, newApiKey, newApiKeyId, newEnrollmentToken, newTokenId } from '../../issuer/secrets.js';
import { generateSigningKey, publicKeyBase64Url, savePrivateKey, signEd25519Node, type SigningKey } from '../../issuer/signing.js';
import { openDatabase, type Db } from '../../issuer/store/database.js';
import type { Sql, SqlDatabase } from '../../issuer/store/sql.js';
import { SqliteDatabase, sqliteSql } from '../../issuer/store/sqlite-database.js';
import type { EventRow } from '../../issuer/store/events.js';
import { INSERT_ISSUER_INFO } from '../../issuer/store/issuer-info.js';
import type { TicketRow } from '../../issuer/store/tickets.js';

const HOUR = 3600_000;

export interface EnrolledScanner {
  apiKey: string;
  apiKeyId: string;
  scannerId: string;
  eid: string;
  gateId: string | null;
}

export interface SetupToken {
  token: string;
  tokenId: string;
  setupCode: string;
}

export interface IssuerFixture {
  root: string;
  dataDir: DataDir;
  /** A connection of the test's own, for setup and for asserting what the server stored. */
  db: Db;
  /** The same connection behind the issuer's database port, for calling issuer/store and issuer/services. */
  sql: Sql;
  /** The same connection as the port's database (writes through its group commit); cleanup() closes it. */
  database: SqlDatabase;
  baseUrl: string;
  name: string;
  signingKey: SigningKey;
  createEvent(options?: { name?: string; date?: Date; endsAt?: Date; entryPolicy?: EntryPolicy; capacity?: number | null }): EventRow;
  issueTicket(eid: string, options?: { holderName?: string | null; ticketType?: string | null; expiresAt?: Date }): TicketRow;
  createSetupToken(eid: string, options?: { gateId?: string | null; expiresAt?: Date; keyExpiresAt?: Date }): SetupToken;
  /** A scanner key inserted directly, as if enrolled. */
  enrollScanner(eid: string, options?: { scannerId?: string; gateId?: string | null; expiresAt?: Date }): EnrolledScanner;
  /** Closes the test's connection and deletes the folder. */
  cleanup(): void;
}

export function createIssuerFixture(options: { baseUrl?: string; name?: string } = {}): IssuerFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'issuer-test-'));
  const dataDir = resolveDataDir(path.join(root, 'data'));
  createDataDir(dataDir);
  const db = openDatabase(dataDir.database);
  const baseUrl = options.baseUrl ?? 'https://tickets.example.test';
  const name = options.name ?? 'Example Tickets';
  const now = new Date();
  db.prepare(INSERT_ISSUER_INFO).run({ base_url: baseUrl, name, created_at: now.toISOString() });
  const signingKey = generateSigningKey();
  savePrivateKey(dataDir.keysDir, signingKey);
  db.prepare('INSERT INTO signing_keys (kid, public_key, valid_from, valid_until, active) VALUES (?, ?, ?, NULL, 1)').run(
    signingKey.kid,
    publicKeyBase64Url(signingKey),
    now.toISOString(),
  );
  const events = new Map<string, EventRow>();

  return {
    root,
    dataDir,
    db,
    sql: sqliteSql(db),
    database: new SqliteDatabase(db),
    baseUrl,
    name,
    signingKey,

    createEvent({
      name: eventName = 'Spring Concert',
      date = new Date(Date.now() + 2 * HOUR),
      endsAt,
      entryPolicy = 'single',
      capacity = null,
    } = {}) {
      const event: EventRow = {
        eid: ulid(),
        name: eventName,
        date: date.toISOString(),
        venue: 'Main Hall',
        ends_at: (endsAt ?? new Date(date.getTime() + 12 * HOUR)).toISOString(),
        created_at: new Date().toISOString(),
        entry_policy: entryPolicy,
        capacity,
      };
      insertRow(db, 'events', { ...event });
      events.set(event.eid, event);
      return event;
    },

    issueTicket(eid, { holderName = 'Ada Lovelace', ticketType = 'Standard', expiresAt = new Date(Date.now() + 24 * HOUR) } = {}) {
      const event = events.get(eid)!;
      const tid = ulid();
      const iat = Math.floor(Date.now() / 1000);
      const exp = Math.floor(expiresAt.getTime() / 1000);
      const payload = {
        v: PROTOCOL_VERSION,
        iss: baseUrl,
        kid: signingKey.kid,
        tid,
        eid,
        ev: { name: event.name, date: event.date, venue: event.venue },
        ...(ticketType !== null ? { tt: ticketType } : {}),
        ...(holderName !== null ? { hn: holderName } : {}),
        iat,
        exp,
      };
      const qr = encodeTicketCode(payload, (message) => signEd25519Node(message, signingKey.privateKey));
      const ticket = {
        tid,
        eid,
        kid: signingKey.kid,
        holder_name: holderName,
        ticket_type: ticketType,
        issued_at: new Date(iat * 1000).toISOString(),
        exp,
        qr,
      };
      // As insertTickets stores it (issuer/store/tickets.ts): the name in the searchable form too.
      insertRow(db, 'tickets', { ...ticket, search_name: holderName === null ? null : searchName(holderName) });
      return { ...ticket, revoked_at: null, revoke_reason: null };
    },

    createSetupToken(
      eid,
      { gateId = null, expiresAt = new Date(Date.now() + 24 * HOUR), keyExpiresAt = new Date(Date.now() + 48 * HOUR) } = {},
    ) {
      const token = newEnrollmentToken();
      const tokenId = newTokenId();
      insertRow(db, 'enrollment_tokens', {
        token_id: tokenId,
        token_hash: hashSecret(token),
        eid,
        gate_id: gateId,
        expires_at: expiresAt.toISOString(),
        key_expires_at: keyExpiresAt.toISOString(),
        created_at: new Date().toISOString(),
      });
      const setupCode = encodeSetupCode({
        v: PROTOCOL_VERSION,
        iss: baseUrl,
        enroll_url: `${baseUrl}/api/v1/scanners/enroll`,
        token,
        eid,
        ...(gateId !== null ? { gate_id: gateId } : {}),
        expires_at: expiresAt.toISOString(),
      });
      return { token, tokenId, setupCode };
    },

    enrollScanner(eid, { scannerId = randomUUID(), gateId = null, expiresAt = new Date(Date.now() + 48 * HOUR) } = {}) {
      const { tokenId } = this.createSetupToken(eid, { gateId });
      db.prepare('UPDATE enrollment_tokens SET used_at = ? WHERE token_id = ?').run(new Date().toISOString(), tokenId);
      const apiKey = newApiKey();
      const apiKeyId = newApiKeyId();
      insertRow(db, 'api_keys', {
        api_key_id: apiKeyId,
        key_hash: hashSecret(apiKey),
        token_id: tokenId,
        scanner_id: scannerId,
        scanner_name: 'Test scanner',
        scanner_platform: 'vitest',
        eid,
        gate_id: gateId,
        expires_at: expiresAt.toISOString(),
        created_at: new Date().toISOString(),
      });
      return { apiKey, apiKeyId, scannerId, eid, gateId };
    },

    cleanup() {
      db.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** INSERT of one row, its columns named by the object's keys. */
function insertRow(db: Db, table: string, row: Record<string, string | number | null>): void {
  const columns = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`).run(row);
}
