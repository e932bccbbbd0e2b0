/**
 * The kiosk's staff records reach the issuer (docs/protocol.md "Scanner heartbeat", docs/kiosk.md "The kiosk's
 * audit log", docs/issuer.md "Admin dashboard"), all real, on SQLite and on PostgreSQL: the built CLI's issuer
 * (`init`, on a throwaway PostgreSQL cluster for the second, `serve` as a child process on loopback), a real
 * kiosk core on a real kiosk.db enrolled with the CLI's setup code, through the page's calls.
 *
 * A supervisor's badge overrides the attention prompt of a ticket the kiosk admitted, then annuls the check-in;
 * a heartbeat later the dashboard's API lists both with the badge's staff id and name, and `checkins export`
 * names the staff id beside the admission (`attention_overridden_by`) and the annulment (`staff_id`). A second
 * heartbeat, a lost acknowledgement and a kiosk restart store nothing twice; a heartbeat with a malformed staff
 * record is refused 400 naming the field. No PIN and no badge code ever reaches the issuer.
 *
 * The kiosk's key is kept in memory (test/support/unit/memory-api-keys.ts): the keyring is not under test here.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { StaffActionList } from '../../../issuer/dashboard-api.js';
import { cliJson, scratchDir, serveCli } from '../../support/cli-harness.js';
import { freePort } from '../../support/free-port.js';
import { enroll } from '../../support/issuer-http.js';
import { startPostgresCluster } from '../../support/postgres-cluster.js';
import { BOTH_STORES, type Store } from '../../support/issuer-on-store.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';

const KIOSK_PIN = '90210';
const NOTE = 'Wheelchair user: side entrance';

async function page<T = unknown>(core: KioskCore, call: string, ...args: unknown[]): Promise<T> {
  const answer = await handleKioskCall(core, call, args);
  if (!answer.ok) throw new Error(`${call}: ${answer.error.code} ${answer.error.message}`);
  return answer.value as T;
}

describe.each<[Store]>(BOTH_STORES)('staff actions from a real kiosk to the issuer on %s', (store) => {
  it('a badge override and annulment reach the dashboard and checkins export once each; a malformed record is refused', async () => {
    const cluster = store === 'PostgreSQL' ? await startPostgresCluster({ database: 'issuer' }) : null;
    const dir = scratchDir('staff-actions-');
    const data = join(dir, 'issuer-data');
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const cores: KioskCore[] = [];
    let serve: Awaited<ReturnType<typeof serveCli>> | null = null;
    try {
      await cliJson([
        'init',
        '--data',
        data,
        ...(cluster ? ['--database', cluster.url] : []),
        '--base-url',
        baseUrl,
        '--name',
        'Harbour Tickets',
      ]);
      const { admin_token: adminToken } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', data]);
      const start = new Date(Date.now() - 3600_000).toISOString();
      const { eid } = await cliJson<{ eid: string }>([
        'event',
        'create',
        '--data',
        data,
        '--name',
        'Night',
        '--date',
        start,
        '--venue',
        'Pier',
      ]);
      const { tickets } = await cliJson<{ tickets: { tid: string; qr: string }[] }>([
        'ticket',
        'issue',
        '--data',
        data,
        '--event',
        eid,
        '--holder',
        'Ada Lovelace',
        '--attention',
        '--note',
        NOTE,
      ]);
      const ticket = tickets[0]!;
      const badge = await cliJson<{ sid: string; badge_qr: string }>([
        'staff',
        'badge',
        'issue',
        '--data',
        data,
        '--event',
        eid,
        '--name',
        'Kim Supervisor',
        '--role',
        'supervisor',
      ]);
      const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', eid, '--gate', 'North']);
      serve = await serveCli(['--data', data, '--plain-http', '--host', '127.0.0.1', '--port', String(port), '--enroll-rpm', '1000']);

      const keys = new MemoryApiKeys();
      const dbPath = join(dir, 'kiosk.db');
      const open = (): KioskCore => {
        const core = new KioskCore({ dbPath, apiKeys: keys, autoDrain: false, onlineBudgetMs: 5000, repeatReadWindowMs: 0 });
        cores.push(core);
        return core;
      };
      let core = open();
      expect(await page<ScanResult>(core, 'scan', setup.setup_qr)).toMatchObject({ type: 'enrolled' });
      expect(await page(core, 'setStaffPin', KIOSK_PIN)).toEqual({ type: 'pin_set' });
      await page(core, 'lockStaff');

      // Ada is admitted with her note on screen: the door is held until Done or an override.
      const admitted = await page<ScanResult>(core, 'scan', ticket.qr);
      expect(admitted).toMatchObject({ type: 'verdict', verdict: { kind: 'admit' } });
      // Kim's supervisor badge unlocks her; she overrides the prompt, then annuls the check-in.
      expect(await page<ScanResult>(core, 'scan', badge.badge_qr)).toMatchObject({ type: 'staff_unlocked' });
      expect(await page(core, 'overrideAttention')).toMatchObject({ attention_hold: null });
      expect(await page(core, 'annul', ticket.tid, 'wrong wristband')).toMatchObject({ type: 'annulled' });

      const admin = async <T>(path: string): Promise<T> => {
        const response = await fetch(`${baseUrl}/admin/api${path}`, { headers: { authorization: `Bearer ${adminToken}` } });
        expect(response.status, await response.clone().text()).toBe(200);
        return (await response.json()) as T;
      };
      const listed = () => admin<StaffActionList>(`/events/${eid}/staff-actions`);
      expect((await listed()).actions).toEqual([]);

      await core.heartbeat();
      const first = await listed();
      expect(first.actions.find((a) => a.event === 'attention_override')).toMatchObject({
        staff_id: badge.sid,
        name: 'Kim Supervisor',
        role: 'supervisor',
        via: 'badge',
        tid: ticket.tid,
        gate_id: 'North',
      });
      expect(first.actions.find((a) => a.event === 'staff_action' && a.call === 'annul')).toMatchObject({
        staff_id: badge.sid,
        role: 'supervisor',
      });
      expect(first.actions.find((a) => a.event === 'pin_set')).toMatchObject({ staff_id: 'kiosk-pin', via: 'kiosk_pin' });
      // Newest first; never the PIN nor the badge's code.
      const times = first.actions.map((a) => a.at);
      expect([...times].sort().reverse()).toEqual(times);
      expect(JSON.stringify(first)).not.toContain(KIOSK_PIN);
      expect(JSON.stringify(first)).not.toContain(badge.badge_qr.split('.')[1]!);
      const count = first.actions.length;

      // `checkins export` (the real CLI): who overrode the admission's prompt, and who annulled it.
      const rows = await cliJson<Record<string, string | null>[]>(['checkins', 'export', '--data', data, '--event', eid]);
      expect(rows.find((row) => row.source === 'checkins' && row.tid === ticket.tid)).toMatchObject({
        state: 'annulled',
        attention_overridden_by: badge.sid,
      });
      expect(rows.find((row) => row.source === 'admission_events' && row.action === 'annul')).toMatchObject({ staff_id: badge.sid });

      // A second heartbeat sends nothing again: the kiosk keeps the acknowledgement in kiosk.db.
      await core.heartbeat();
      expect((await listed()).actions).toHaveLength(count);
      const ack = () => {
        const db = new Database(dbPath, { readonly: true });
        try {
          const row = db.prepare("SELECT value FROM settings WHERE key = 'staff_actions_acknowledged'").get() as
            { value: string } | undefined;
          const last = db.prepare("SELECT MAX(position) AS p FROM audit_log WHERE kind = 'staff'").get() as { p: number };
          return { ack: row === undefined ? null : (JSON.parse(row.value) as { position: number }).position, last: last.p };
        } finally {
          db.close();
        }
      };
      expect(ack().ack).toBe(ack().last);

      // An acknowledgement lost (a crash before it was kept): the same records go again, and are stored once.
      await core.close();
      const lost = new Database(dbPath);
      lost.prepare("DELETE FROM settings WHERE key = 'staff_actions_acknowledged'").run();
      lost.close();
      // A restart: the new core sends them again, and what happens next too.
      core = open();
      await core.heartbeat();
      expect((await listed()).actions).toHaveLength(count);
      expect(ack().ack).toBe(ack().last);
      expect(await page<ScanResult>(core, 'scan', badge.badge_qr)).toMatchObject({ type: 'staff_unlocked' });
      await page(core, 'lockStaff');
      await core.heartbeat();
      const after = await listed();
      expect(after.actions.length).toBe(count + 2);
      expect(after.actions.slice(0, 2).map((a) => a.event)).toEqual(['locked', 'unlocked']);
      await core.heartbeat();
      expect((await listed()).actions).toHaveLength(count + 2);

      // A malformed staff record refuses the whole heartbeat, naming the field; nothing of it is kept.
      const other = await enroll(baseUrl, data, eid);
      const heartbeat = (staffActions: unknown[]) =>
        fetch(`${baseUrl}/api/v1/scanners/heartbeat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${other.apiKey}` },
          body: JSON.stringify({ scanner_id: other.scannerId, staff_actions: staffActions }),
        });
      const good = {
        position: 1,
        hash: 'b'.repeat(64),
        at: new Date().toISOString(),
        event: 'unlocked',
        staff_id: 'sam',
        name: 'Sam',
        role: 'steward',
        via: 'pin',
      };
      for (const [bad, field] of [
        [{ ...good, name: 'Sam\u202emaS' }, 'staff_actions.1.name'],
        [{ ...good, event: 'pin_shown' }, 'staff_actions.1.event'],
        [{ ...good, hash: undefined }, 'staff_actions.1.hash'],
      ] as const) {
        const refused = await heartbeat([good, bad]);
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({ error: { code: 'INVALID_REQUEST', details: { field } } });
      }
      expect((await listed()).actions).toHaveLength(count + 2);
      const stored = await heartbeat([good]);
      expect(stored.status).toBe(200);
      expect(await stored.json()).toMatchObject({ staff_actions_through: 1 });
      expect((await listed()).actions).toHaveLength(count + 3);
    } finally {
      for (const core of cores) await core.close().catch(() => undefined);
      serve?.child.kill('SIGTERM');
      if (serve?.child.exitCode === null) await new Promise((resolve) => serve!.child.once('exit', resolve));
      await cluster?.stop();
    }
  }, 180_000);
});
