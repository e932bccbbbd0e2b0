/**
 * The dashboard says who at the door, and which kiosk's clock is off (docs/issuer.md "Admin dashboard"), end
 * to end: the built `ticket-issuer` CLI (init, admin-token reset, event, tickets, a steward kiosk's setup code,
 * a supervisor's staff badge, `serve --plain-http` as a child process on loopback), the kiosk enrolled and
 * scanning through the public scanner API, and the built page in real Chromium.
 *
 * A steward's kiosk admits a holder with its own staff id and then annuls the check-in with a supervisor's
 * badge; the page lists the annulment with the supervisor's name, role and staff id, the reason, and the staff
 * id that let the holder in, in English and in German. A heartbeat reporting a clock two hours behind flags
 * that kiosk, and only that one. The same heartbeat's staff record (the supervisor's badge overrode the attention
 * prompt) is in the Staff actions list with the supervisor's name, role and staff id, in both languages.
 *
 * Needs the build (test/global-setup.ts does it); no keyring.
 */
import { randomUUID } from 'node:crypto';
import { expect } from '@playwright/test';
import { dashboardTest as test, eventually, type EnrolledScanner } from '../support/dashboard-page.js';
import { issuerCli } from '../support/door-harness.js';

test('the dashboard names the supervisor who annulled a check-in and flags the kiosk whose clock is off', async ({ dashboard }) => {
  const { dataDir, baseUrl, eid } = await dashboard.create({
    issuer: 'Harbour Lights Festival',
    event: 'Friday Night',
    venue: 'Pier 4',
    startsAt: new Date(Date.now() - 3600_000),
  });
  const { tickets } = await issuerCli<{ tickets: { tid: string }[] }>(
    dataDir,
    'ticket',
    'issue',
    '--event',
    eid,
    '--holder',
    'Ada Lovelace',
    '--type',
    'VIP',
  );
  const tid = tickets[0]!.tid;
  const badge = await issuerCli<{ sid: string; badge_qr: string }>(
    dataDir,
    'staff',
    'badge',
    'issue',
    '--event',
    eid,
    '--name',
    'Lee Supervisor',
    '--role',
    'supervisor',
  );
  const post = async (scanner: EnrolledScanner, path: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  const setup = (role: string, gate: string) =>
    issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', gate, '--role', role);

  await dashboard.start();
  const north = await dashboard.enroll((await setup('steward', 'North')).setup_qr, { name: 'North door kiosk', platform: 'e2e' });
  const south = await dashboard.enroll((await setup('steward', 'South')).setup_qr, { name: 'South door kiosk', platform: 'e2e' });

  // The steward's kiosk lets Ada in with its own staff id, then annuls it with the supervisor's badge.
  const scan = (fields: Record<string, unknown>) =>
    post(north, '/api/v1/tickets/check-in', {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: north.scannerId,
      idempotency_key: randomUUID(),
      ...fields,
    });
  const entry = await scan({ action: 'entry', staff_id: 'steward-7' });
  expect(entry.text).toContain('"status":"valid"');
  const annulled = await scan({ action: 'annul', reason: 'wrong wristband', staff_badge: badge.badge_qr });
  expect(annulled.status, annulled.text).toBe(200);
  expect(annulled.text).toContain('"status":"annulled"');

  // Two heartbeats: the north kiosk's clock is two hours behind the issuer's, the south kiosk's is right.
  const TWO_HOURS_MS = 2 * 3600_000;
  // The north kiosk's heartbeat also carries a staff record of its audit log (docs/protocol.md "Scanner heartbeat"):
  // the supervisor's badge overrode the attention prompt of Ada's admission.
  const override = {
    position: 41,
    hash: 'c'.repeat(64),
    at: new Date().toISOString(),
    event: 'attention_override',
    staff_id: badge.sid,
    name: 'Lee Supervisor',
    role: 'supervisor',
    via: 'badge',
    tid,
  };
  const northBeat = await post(north, '/api/v1/scanners/heartbeat', {
    scanner_id: north.scannerId,
    clock_offset_ms: TWO_HOURS_MS,
    staff_actions: [override],
  });
  expect(northBeat.status).toBe(200);
  expect(northBeat.text).toContain('"staff_actions_through":41');
  expect((await post(south, '/api/v1/scanners/heartbeat', { scanner_id: south.scannerId, clock_offset_ms: 150 })).status).toBe(200);

  const page = await dashboard.signIn();

  // The clock flag: on the north kiosk's row, saying by how much; none on the south kiosk's.
  const northRow = page.locator(`#kiosks tr[data-api-key-id="${north.apiKeyId}"]`);
  const southRow = page.locator(`#kiosks tr[data-api-key-id="${south.apiKeyId}"]`);
  await eventually(() => northRow.locator('.clock-off').count()).toBe(1);
  expect(await northRow.locator('.clock-off').getAttribute('data-clock-offset-ms')).toBe(String(TWO_HOURS_MS));
  expect(await northRow.locator('.clock-off').textContent()).toBe(' clock off by 2 h');
  await southRow.waitFor();
  expect(await southRow.locator('.clock-off').count()).toBe(0);

  // The annulment names the supervisor (badge name, role, staff id), the reason, and who let Ada in.
  const annulment = page.locator(`#annulment-list li[data-tid="${tid}"]`);
  await annulment.waitFor();
  expect(await annulment.textContent()).toContain('Ada Lovelace');
  expect(await annulment.textContent()).toContain('Reason: wrong wristband');
  expect(await annulment.locator('.annulled-by').textContent()).toBe(`Annulled by Lee Supervisor (Supervisor, staff id ${badge.sid})`);
  expect(await annulment.locator('.admitted-by').textContent()).toBe('Let in by staff id steward-7');
  // The badge's code is never on the page.
  expect(await page.content()).not.toContain(badge.badge_qr.split('.')[1]!);

  // Staff actions: the override, with the supervisor's name, role and staff id, the kiosk and the ticket.
  const overridden = page.locator('#staff-actions tr[data-event="attention_override"]');
  await overridden.waitFor();
  expect(await overridden.locator('.who').textContent()).toBe(`Lee Supervisor (Supervisor, staff id ${badge.sid})`);
  expect(await overridden.locator('.what').textContent()).toBe('Attention prompt overridden');
  expect(await overridden.locator('.kiosk').textContent()).toBe('North door kiosk');
  expect(await overridden.locator('.ticket').textContent()).toBe(tid);

  // Ada's ticket looked up: its (annulled) check-in names who let her in.
  await page.fill('#lookup-query', 'lovelace');
  await page.click('#lookup button[type=submit]');
  const card = page.locator(`#lookup-results li[data-tid="${tid}"]`);
  await eventually(() => card.textContent()).toContain('Let in by');
  expect(await card.textContent()).toContain('staff id steward-7');

  // The same in German.
  await page.locator('#language-select').selectOption('de');
  await eventually(() => annulment.locator('.annulled-by').textContent()).toBe(
    `Annulliert von Lee Supervisor (Aufsicht, Personal-ID ${badge.sid})`,
  );
  expect(await annulment.locator('.admitted-by').textContent()).toBe('Eingelassen von Personal-ID steward-7');
  expect(await overridden.locator('.who').textContent()).toBe(`Lee Supervisor (Aufsicht, Personal-ID ${badge.sid})`);
  expect(await overridden.locator('.what').textContent()).toBe('Hinweis übergangen');

  // The page asks once before signing in and is refused (401): the browser logs that; nothing else may be.
  expect(dashboard.pageErrors.filter((error) => !/status of 401/.test(error))).toEqual([]);
});
