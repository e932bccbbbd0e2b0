/**
 * The dashboard shows each webhook endpoint's health (docs/issuer.md "Webhooks"), end to end: the built CLI
 * (init, admin-token reset, event, tickets, `webhook add` twice, `serve --plain-http` as a child process), a
 * receiver on loopback that verifies signatures and answers one endpoint 200 and the other 503, a check-in through
 * the public scanner API, and the built page in real Chromium: the working endpoint "Working" with its delivery,
 * the failing one "Failing" with the endpoint's answer as the last failure; never a secret; in German too.
 *
 * Needs the build (test/global-setup.ts does it); no keyring.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { dashboardTest as test, eventually } from '../support/dashboard-page.js';
import { issuerCli } from '../support/door-harness.js';
import { startReceiver } from '../support/webhook-receiver.js';
test('the dashboard shows a working and a failing webhook endpoint, in words, without their secrets', async ({ dashboard }) => {
  const receiver = await startReceiver();
  dashboard.onEnd(() => receiver.close());
  receiver.statuses.set('/down', 503);

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
  );
  const up = await issuerCli<{ endpoint_id: string }>(
    dataDir,
    'webhook',
    'add',
    `${receiver.url}/up`,
    '--events',
    'all',
    '--secret-file',
    join(dashboard.root, 'up.secret'),
  );
  const down = await issuerCli<{ endpoint_id: string }>(
    dataDir,
    'webhook',
    'add',
    `${receiver.url}/down`,
    '--events',
    'checkin.created',
    '--secret-file',
    join(dashboard.root, 'down.secret'),
  );
  const secrets = ['up', 'down'].map((name) => readFileSync(join(dashboard.root, `${name}.secret`), 'utf8').trim());
  receiver.secrets.set('/up', secrets[0]!);
  receiver.secrets.set('/down', secrets[1]!);
  const { setup_qr: setupQr } = await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', 'North');

  await dashboard.start();
  const { apiKey, scannerId } = await dashboard.enroll(setupQr);
  const checkIn = await fetch(`${baseUrl}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      tid: tickets[0]!.tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scannerId,
      idempotency_key: randomUUID(),
    }),
  });
  expect(await checkIn.text()).toContain('"status":"valid"');
  // serve delivers: the working endpoint hears of the enrollment and the check-in, verified; the other refuses.
  await eventually(() => receiver.received.filter((r) => r.path === '/up' && r.verified).map((r) => r.type)).toEqual([
    'scanner.enrolled',
    'checkin.created',
  ]);
  await eventually(() => receiver.received.some((r) => r.path === '/down' && r.verified && r.status === 503)).toBe(true);

  const page = await dashboard.signIn();

  const upRow = page.locator(`#webhook-table tr[data-endpoint="${up.endpoint_id}"]`);
  const downRow = page.locator(`#webhook-table tr[data-endpoint="${down.endpoint_id}"]`);
  await eventually(() => upRow.getAttribute('data-state')).toBe('ok');
  const cells = async (row: typeof upRow) => (await row.locator('td').allTextContents()).map((text) => text.trim());
  await eventually(async () => (await cells(upRow)).slice(0, 6)).toEqual([`${receiver.url}/up`, 'all', 'Working', '2', '0', '0']);
  await eventually(() => downRow.getAttribute('data-state')).toBe('failing');
  const downCells = await cells(downRow);
  expect(downCells.slice(0, 3)).toEqual([`${receiver.url}/down`, 'checkin.created', 'Failing']);
  expect(downCells[3]).toBe('0');
  expect(downCells[7]).toBe('the endpoint answered 503');
  for (const secret of secrets) expect(await page.content()).not.toContain(secret.slice(6));

  await page.locator('#language-select').selectOption('de');
  await eventually(() => page.locator('#webhooks h2').textContent()).toBe('Webhooks');
  await eventually(async () => (await cells(page.locator(`#webhook-table tr[data-endpoint="${down.endpoint_id}"]`)))[2]).toBe('Fehlerhaft');
  expect(await page.locator('#webhook-table th').allTextContents()).toContain('Aufgegeben');

  expect(dashboard.pageErrors.filter((error) => !/status of 401/.test(error))).toEqual([]);
});
