/** `event create`, `ticket issue`, `ticket show`, `ticket revoke`: exact JSON shapes, and codes that verify. */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64Url } from '../../../protocol/base64url.js';
import { verifyEd25519 } from '../../../protocol/ed25519.js';
import { decodeTicketCode } from '../../../protocol/ticket-code.js';
import {
  BASE_URL,
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  openDb,
  runCli,
  scratchDir,
  type EventJson,
  type Issuer,
} from '../../support/cli-harness.js';
import {
  checkModuleGrid,
  crop,
  decodeWithBoth,
  qrVersion,
  rasteriseTerminalQr,
  sideWithQuietZone,
  terminalQrLines,
  zxingResults,
} from '../../support/qr-decoders.js';

interface Issued {
  tickets: { tid: string; qr: string }[];
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const unix = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/** Decodes and verifies a code against the public keys in the data dir's database. */
function verifiedPayload(data: string, qr: string) {
  const decoded = decodeTicketCode(qr);
  const db = openDb(data);
  const row = db.prepare('SELECT public_key FROM signing_keys WHERE kid = ?').get(decoded.payload.kid) as
    { public_key: string } | undefined;
  db.close();
  expect(row, `kid ${decoded.payload.kid} is one of the issuer's keys`).toBeDefined();
  expect(verifyEd25519(decoded.signature, decoded.signedBytes, decodeBase64Url(row!.public_key))).toBe(true);
  return decoded.payload;
}

let issuer: Issuer;
let event: EventJson;

beforeAll(async () => {
  issuer = await initIssuer();
  event = await createEvent(issuer.data);
});

describe('event create', () => {
  it('prints {eid, name, date, venue, ends_at}; the end defaults to the start + 12 h', async () => {
    expect(Object.keys(event)).toEqual(['eid', 'name', 'date', 'venue', 'ends_at']);
    expect(event.eid).toMatch(ULID);
    expect(event).toMatchObject({ name: 'Spring Gala', venue: 'Main Hall' });
    expect(event.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Date.parse(event.ends_at) - Date.parse(event.date)).toBe(12 * 3_600_000);
  });

  it('normalises dates to UTC and takes --ends', async () => {
    const created = await cliJson([
      'event',
      'create',
      '--data',
      issuer.data,
      '--name',
      'Late Show',
      '--date',
      '2027-05-01T21:30:00+02:00',
      '--ends',
      '2027-05-02T01:00:00+02:00',
      '--venue',
      'Club',
    ]);
    expect(created).toEqual({
      eid: expect.stringMatching(ULID),
      name: 'Late Show',
      date: '2027-05-01T19:30:00Z',
      venue: 'Club',
      ends_at: '2027-05-01T23:00:00Z',
    });
    const listed = await cliJson<{ events: EventJson[] }>(['event', 'list', '--data', issuer.data]);
    expect(listed.events).toContainEqual(created);
  });
});

describe('ticket issue', () => {
  it('prints {tickets: [{tid, qr}]}; each code verifies and carries the spec payload', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await cliJson<Issued>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--holder',
      'Ada Lovelace',
      '--type',
      'VIP',
    ]);
    expect(Object.keys(result)).toEqual(['tickets']);
    expect(result.tickets).toHaveLength(1);
    const [ticket] = result.tickets;
    expect(Object.keys(ticket!)).toEqual(['tid', 'qr']);
    expect(ticket!.tid).toMatch(ULID);

    const payload = verifiedPayload(issuer.data, ticket!.qr);
    expect(payload).toEqual({
      v: 1,
      iss: BASE_URL,
      kid: issuer.kid,
      tid: ticket!.tid,
      eid: event.eid,
      ev: { name: 'Spring Gala', date: event.date, venue: 'Main Hall' },
      tt: 'VIP',
      hn: 'Ada Lovelace',
      iat: expect.any(Number),
      exp: unix(event.ends_at) + 12 * 3600,
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
  });

  it('--count issues distinct tickets, stored with their codes; --expires sets exp; tt and hn are left out when not given', async () => {
    const result = await cliJson<Issued>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--count',
      '25',
      '--expires',
      '2030-01-01T00:00:00Z',
    ]);
    expect(result.tickets).toHaveLength(25);
    expect(new Set(result.tickets.map((t) => t.tid)).size).toBe(25);
    for (const ticket of result.tickets) {
      const payload = verifiedPayload(issuer.data, ticket.qr);
      expect(payload.tid).toBe(ticket.tid);
      expect(payload.exp).toBe(unix('2030-01-01T00:00:00Z'));
      expect('tt' in payload || 'hn' in payload).toBe(false);
    }
    const db = openDb(issuer.data);
    const stored = db
      .prepare(`SELECT tid, qr, eid, kid FROM tickets WHERE tid IN (${result.tickets.map(() => '?').join(',')})`)
      .all(...result.tickets.map((t) => t.tid));
    db.close();
    expect(stored).toEqual(expect.arrayContaining(result.tickets.map((t) => ({ tid: t.tid, qr: t.qr, eid: event.eid, kid: issuer.kid }))));
    expect(stored).toHaveLength(25);
  });

  it('signs thousands of tickets across threads, every one verifying', async () => {
    const result = await cliJson<Issued>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--count',
      '5000',
      '--type',
      'Standard',
    ]);
    expect(result.tickets).toHaveLength(5000);
    expect(new Set(result.tickets.map((t) => t.tid)).size).toBe(5000);
    // Every 50th and the last: the batches and the threads' shares all verify and match their tid.
    for (const [i, ticket] of result.tickets.entries()) {
      if (i % 50 !== 0 && i !== result.tickets.length - 1) continue;
      const payload = verifiedPayload(issuer.data, ticket.qr);
      expect(payload.tid).toBe(ticket.tid);
      expect(payload.tt).toBe('Standard');
    }
  });

  it('without --json, prints one "tid<TAB>code" line per ticket on stdout and the summary on stderr', async () => {
    const result = await runCli(['ticket', 'issue', '--data', issuer.data, '--event', event.eid, '--count', '3']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^[0-9A-Z]{26}\ttkt1\.[\w-]+\.[\w-]+$/);
    expect(result.stderr).toContain('Issued 3 ticket(s)');
  });
});

describe('ticket show and ticket revoke', () => {
  it('show prints the TicketStatus plus "qr"; revoke prints {tid, status: "revoked"} and show then says revoked', async () => {
    const { tickets } = await cliJson<Issued>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--holder',
      'Grace Hopper',
      '--type',
      'Crew',
    ]);
    const { tid, qr } = tickets[0]!;

    const shown = await cliJson(['ticket', 'show', '--data', issuer.data, tid]);
    expect(shown).toEqual({
      tid,
      eid: event.eid,
      status: 'valid',
      holder_name: 'Grace Hopper',
      ticket_type: 'Crew',
      issued_at: expect.stringMatching(/Z$/),
      checked_in_at: null,
      qr,
    });

    const revoked = await cliJson(['ticket', 'revoke', '--data', issuer.data, tid, '--reason', 'refund']);
    expect(revoked).toEqual({ tid, status: 'revoked' });
    expect((await cliJson(['ticket', 'show', '--data', issuer.data, tid])).status).toBe('revoked');
    // Revoking again is harmless and keeps the first reason.
    expect(await cliJson(['ticket', 'revoke', '--data', issuer.data, tid, '--reason', 'other'])).toEqual({ tid, status: 'revoked' });
    const db = openDb(issuer.data);
    expect(db.prepare('SELECT revoke_reason FROM tickets WHERE tid = ?').get(tid)).toEqual({ revoke_reason: 'refund' });
    db.close();
  });

  it('show without --json draws the QR in the terminal and prints the raw code', async () => {
    const { tickets } = await cliJson<Issued>(['ticket', 'issue', '--data', issuer.data, '--event', event.eid]);
    const result = await runCli(['ticket', 'show', '--data', issuer.data, tickets[0]!.tid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Status      valid');
    expect(result.stdout).toMatch(/[▀▄█]/);
    expect(result.stdout).toContain(tickets[0]!.qr);
    // Drawn as a dark terminal shows it, it reads with jsqr and zxing-cpp, with the 4-module quiet zone (docs/issuer.md "QR codes").
    const image = rasteriseTerminalQr(terminalQrLines(result.stdout));
    expect(await decodeWithBoth(image)).toEqual([tickets[0]!.qr, [tickets[0]!.qr]]);
    const [read] = await zxingResults(image);
    expect(checkModuleGrid(crop(image, 0, 0, image.width, image.width), sideWithQuietZone(qrVersion(read!)))).toBe(4);
  });
});

describe('ticket import', () => {
  const csvFile = (text: string): string => {
    const file = path.join(scratchDir('csv-'), 'tickets.csv');
    fs.writeFileSync(file, text);
    return file;
  };

  it('issues one ticket per row: header optional, quoted commas and quotes, CRLF, blank lines, optional expires_at', async () => {
    const file = csvFile(
      [
        'holder_name,ticket_type,expires_at',
        '"Lovelace, Ada",VIP,',
        'Grace Hopper,Standard,2031-06-01T12:00:00Z',
        '',
        '"Alan ""The Bombe"" Turing","Crew, Backstage"',
        ',Standard',
      ].join('\r\n') + '\r\n',
    );
    const result = await cliJson<Issued>(['ticket', 'import', '--data', issuer.data, '--event', event.eid, '--csv', file]);
    expect(Object.keys(result)).toEqual(['tickets']);
    const payloads = result.tickets.map((t) => verifiedPayload(issuer.data, t.qr));
    const defaultExp = unix(event.ends_at) + 12 * 3600;
    expect(payloads.map((p) => ({ hn: p.hn, tt: p.tt, exp: p.exp }))).toEqual([
      { hn: 'Lovelace, Ada', tt: 'VIP', exp: defaultExp },
      { hn: 'Grace Hopper', tt: 'Standard', exp: unix('2031-06-01T12:00:00Z') },
      { hn: 'Alan "The Bombe" Turing', tt: 'Crew, Backstage', exp: defaultExp },
      { hn: undefined, tt: 'Standard', exp: defaultExp },
    ]);
  });

  it('works without a header row', async () => {
    const result = await cliJson<Issued>([
      'ticket',
      'import',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--csv',
      csvFile('Ada,VIP\nGrace,Standard'),
    ]);
    expect(result.tickets.map((t) => decodeTicketCode(t.qr).payload.hn)).toEqual(['Ada', 'Grace']);
  });

  it('a bad line names its line number and nothing is stored', async () => {
    const countTickets = (): number => {
      const db = openDb(issuer.data);
      const { n } = db.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number };
      db.close();
      return n;
    };
    const before = countTickets();
    const file = csvFile(
      [
        'holder_name,ticket_type',
        'Ada,VIP',
        'Grace,Standard,next week',
        'Alan,Crew',
        'Too,Many,2031-01-01T00:00:00Z,1,a note,1990-01-01,3,fields',
        'Big,Party,,,,,1001',
      ].join('\n'),
    );
    const failure = await cliFailure(['ticket', 'import', '--data', issuer.data, '--event', event.eid, '--csv', file]);
    expect(failure.code).toBe('CSV_INVALID');
    expect(failure.message).toContain('3 bad lines, nothing imported');
    expect(failure.message).toContain('line 3: expires_at "next week" is not an ISO 8601 date-time');
    expect(failure.message).toContain('line 5: expected 2 to 7 fields');
    expect(failure.message).toContain('line 6: party must be how many people the ticket admits, a whole number 1 to 1000');
    expect(countTickets()).toBe(before);
  });

  it('an unclosed quote is reported at the line it opens on', async () => {
    const failure = await cliFailure([
      'ticket',
      'import',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--csv',
      csvFile('Ada,VIP\n"Grace,Standard\nAlan,Crew\n'),
    ]);
    expect(failure.code).toBe('CSV_INVALID');
    expect(failure.message).toContain('line 2: a quoted field is never closed');
  });

  it('an empty file or a missing file is a clear error', async () => {
    expect(
      (await cliFailure(['ticket', 'import', '--data', issuer.data, '--event', event.eid, '--csv', csvFile('holder_name,ticket_type\n')]))
        .message,
    ).toContain('no ticket rows');
    const missing = await cliFailure(['ticket', 'import', '--data', issuer.data, '--event', event.eid, '--csv', '/nonexistent/file.csv']);
    expect(missing.code).toBe('INVALID_ARGUMENT');
    expect(missing.message).toContain('ENOENT');
  });
});
