/**
 * A damaged kiosk.db at start, and damage found while running
 * (docs/kiosk.md "Storage integrity"). Real SQLite files, damaged the way
 * disks and power cuts damage them: a zeroed header, a truncated file, one
 * overwritten page of the scans table. The kiosk must start, keep the old
 * file, recover every queued scan that can be read, send each to the issuer
 * exactly once, and tell IT what happened.
 */
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
let dbPath: string;
let apiKeys: MemoryApiKeys;
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
  dbPath = join(dir.dir, 'kiosk.db');
  apiKeys = new MemoryApiKeys();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close().catch(() => undefined);
  await issuer.close();
  dir.cleanup();
});

function core(log: string[] = []): KioskCore {
  const created = new KioskCore({ dbPath, apiKeys, autoDrain: false, log: (line) => log.push(line) });
  cores.push(created);
  return created;
}

/** An enrolled kiosk with `count` offline admissions queued, closed cleanly (checkpointed into kiosk.db). */
async function kioskWithQueue(count: number): Promise<string[]> {
  const kiosk = core();
  expect((await kiosk.scan(issuer.setupCode())).type).toBe('enrolled');
  issuer.down = true;
  const tids: string[] = [];
  for (let i = 0; i < count; i++) {
    const ticket = issuer.issueTicket();
    const result = await kiosk.scan(ticket.code);
    expect(result).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', offline: true } });
    tids.push(ticket.tid);
  }
  await kiosk.close();
  cores.splice(cores.indexOf(kiosk), 1);
  issuer.down = false;
  return tids;
}

/** Page numbers of the scans table's leaf pages, from SQLite's own dbstat. */
function scansLeafPages(): number[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (
      db.prepare(`SELECT pageno FROM dbstat WHERE name = 'scans' AND pagetype = 'leaf' ORDER BY pageno`).all() as { pageno: number }[]
    ).map((row) => row.pageno);
  } finally {
    db.close();
  }
}

function overwrite(offset: number, bytes: Buffer): void {
  const fd = openSync(dbPath, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** Drains the recovered kiosk's queue to the issuer; returns the tids the issuer received, with the keys used. */
async function drain(kiosk: KioskCore): Promise<Map<string, string[]>> {
  // Attempts made while the issuer was down were refused unread: count what the drain sends.
  const before = issuer.checkInRequests().length;
  await kiosk.drain();
  const keysByTid = new Map<string, string[]>();
  for (const request of issuer.checkInRequests().slice(before)) {
    const body = request.body as { tid: string; idempotency_key: string };
    keysByTid.set(body.tid, [...(keysByTid.get(body.tid) ?? []), body.idempotency_key]);
  }
  return keysByTid;
}

const damagedFiles = () =>
  readdirSync(dir.dir).filter((name) => name.startsWith('kiosk.db.damaged-') && !name.endsWith('-wal') && !name.endsWith('-shm'));

describe('a damaged kiosk.db at start', () => {
  it('a zeroed header: the kiosk starts, keeps the file, recovers every queued scan and its enrollment, and says so', async () => {
    const tids = await kioskWithQueue(12);
    const original = readFileSync(dbPath);
    overwrite(0, Buffer.alloc(100));
    const log: string[] = [];
    const kiosk = core(log);
    const state = await kiosk.getState();
    expect(state.enrolled).toBe(true);
    expect(state.pending_scans).toBe(12);
    expect(state.storage).toMatchObject({
      state: 'recovered',
      message: expect.stringMatching(/12 queued scan\(s\) were recovered.*enrollment was kept.*kept as .*kiosk\.db\.damaged-/s),
    });
    expect(log.some((line) => line.includes('12 queued scan(s) were recovered'))).toBe(true);
    // The damaged file is kept as it was (apart from the header we zeroed).
    const [kept] = damagedFiles();
    expect(kept).toBeDefined();
    expect(readFileSync(join(dir.dir, kept!)).subarray(100)).toEqual(original.subarray(100));
    const sent = await drain(kiosk);
    for (const tid of tids) expect(sent.get(tid)).toHaveLength(1);
    expect((await kiosk.getState()).pending_scans).toBe(0);
    // After a restart the healthy new file is used as it is; the notice stays for IT (Setup only).
    await kiosk.close();
    cores.splice(0);
    expect((await core().getState()).storage).toMatchObject({ state: 'recovered_earlier' });
    expect(damagedFiles()).toHaveLength(1);
  });

  it('a truncated file: what is left is read back; the kiosk starts and sends what it recovered once each', async () => {
    await kioskWithQueue(60);
    const size = statSync(dbPath).size;
    // Cut at 70%: the schema's tables and indexes take the file's first pages (they grew with the party and handout
    // tables), so the queued scans' pages start later in the file.
    truncateSync(dbPath, Math.floor(size * 0.7));
    const kiosk = core();
    const state = await kiosk.getState();
    expect(state.storage?.state).toBe('recovered');
    expect(damagedFiles()).toHaveLength(1);
    const recovered = state.pending_scans;
    // The pages before the cut are read back; the settings (first pages) with them.
    expect(recovered).toBeGreaterThan(10);
    expect(recovered).toBeLessThan(60);
    expect(state.enrolled).toBe(true);
    const sent = await drain(kiosk);
    expect([...sent.values()].every((keys) => keys.length === 1)).toBe(true);
    expect(sent.size).toBe(recovered);
    expect(state.storage!.message).toContain(`${recovered} queued scan(s) were recovered`);
  });

  it('one overwritten page of the scans table: only its rows are lost; every other queued scan is recovered and sent once', async () => {
    const tids = await kioskWithQueue(150);
    const leaves = scansLeafPages();
    expect(leaves.length).toBeGreaterThan(3);
    const victim = leaves[Math.floor(leaves.length / 2)]!;
    overwrite((victim - 1) * 4096, Buffer.alloc(4096, 0xa5));
    const kiosk = core();
    const state = await kiosk.getState();
    expect(state.storage?.state).toBe('recovered');
    expect(state.enrolled).toBe(true);
    // A 4 KB page holds a few dozen scans: those are lost, the rest come back.
    expect(state.pending_scans).toBeGreaterThan(150 - 60);
    expect(state.pending_scans).toBeLessThan(150);
    const sent = await drain(kiosk);
    expect(sent.size).toBe(state.pending_scans);
    expect([...sent.values()].every((keys) => keys.length === 1)).toBe(true);
    expect([...sent.keys()].every((tid) => tids.includes(tid))).toBe(true);
  });

  it('a healthy file is left alone', async () => {
    await kioskWithQueue(3);
    const state = await core().getState();
    expect(state.storage).toBeNull();
    expect(damagedFiles()).toEqual([]);
  });
});

describe('damage found while the kiosk runs', () => {
  it('the door says "storage fault: call IT", not "scan again"; a restart recovers', async () => {
    await kioskWithQueue(40);
    const log: string[] = [];
    const kiosk = core(log);
    expect((await kiosk.getState()).storage).toBeNull();
    // The disk goes bad under the running kiosk: every page after the first is overwritten.
    const size = statSync(dbPath).size;
    overwrite(4096, Buffer.alloc(size - 4096, 0x5a));
    const ticket = issuer.issueTicket();
    issuer.down = true;
    const result = await kiosk.scan(ticket.code);
    expect(result).toMatchObject({ type: 'storage_fault', message: expect.stringContaining('call IT') });
    const state = await kiosk.getState();
    expect(state.storage).toMatchObject({ state: 'fault' });
    expect(log.some((line) => line.startsWith('Kiosk storage fault'))).toBe(true);
  });
});

describe('file modes', () => {
  it('kiosk.db and its -wal/-shm are 0600 from the start, and looser ones are tightened at the next start', async () => {
    await kioskWithQueue(1);
    const kiosk = core();
    await kiosk.getState();
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(dbPath + suffix)) expect(statSync(dbPath + suffix).mode & 0o777).toBe(0o600);
    await kiosk.close();
    cores.splice(0);
    chmodSync(dbPath, 0o644);
    core();
    expect(statSync(dbPath).mode & 0o777).toBe(0o600);
  });
});
