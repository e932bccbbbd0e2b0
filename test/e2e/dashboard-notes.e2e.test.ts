/**
 * The lookup card's attention flag and check-in note (docs/issuer.md "Attention flags and check-in notes"), end
 * to end: the built `ticket-issuer` CLI (init, admin-token reset, event, a VIP type rule, a ticket, a scanner's
 * setup code, `serve --plain-http` on loopback), the built dashboard in real Chromium, and a scanner asking the
 * public status endpoint what the door is told after each change.
 *
 * The card shows the type's note; the admin flags the ticket and gives it its own note; the status answer then
 * carries both, in order; a note with a control character is refused with a clear message and nothing changes;
 * clearing the note and the flag leaves the type's note only. The ticket types panel then flags the VIP type and
 * changes its note, which the status answer carries; a bad note is refused there too. Needs the build
 * (test/global-setup.ts does it).
 */
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { dashboardTest as test, eventually } from '../support/dashboard-page.js';
import { issuerCli, ROOT } from '../support/door-harness.js';
test('the admin flags a ticket and gives it a note on the lookup card; the door is told both', async ({ dashboard }) => {
  const { dataDir, baseUrl, eid } = await dashboard.create({
    issuer: 'Harbour Lights Festival',
    event: 'Friday Night',
    venue: 'Pier 4',
  });
  await issuerCli(dataDir, 'event', 'ticket-type', 'set', '--event', eid, '--type', 'VIP', '--note', 'Green wristband');
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
  const { setup_qr: setupQr } = await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid);

  await dashboard.start();
  const { apiKey } = await dashboard.enroll(setupQr);
  const doorIsTold = async (): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${apiKey}` } });
    return ((await response.json()) as { attention?: unknown }).attention ?? null;
  };

  const page = await dashboard.signIn();

  await page.fill('#lookup-query', 'lovelace');
  await page.click('#lookup button[type=submit]');
  const card = page.locator(`#lookup-results li[data-tid="${tid}"]`);
  await eventually(() => card.textContent()).toContain('At the door');
  expect(await card.textContent()).toContain('Green wristband');
  expect(await card.locator('[data-field=attention]').isChecked()).toBe(false);
  expect(await card.locator('[data-field=note]').inputValue()).toBe('');

  // Flag the ticket and give it its own note.
  await card.locator('[data-field=attention]').check();
  await card.locator('[data-field=note]').fill('Wheelchair user: side door');
  await card.locator('form[data-action=ticket-attention] button[type=submit]').click();
  await eventually(() => card.locator('dd').allTextContents()).toContain('ATTENTION · Green wristband · Wheelchair user: side door');
  expect(await card.locator('[data-field=attention]').isChecked()).toBe(true);
  expect(await card.locator('[data-field=note]').inputValue()).toBe('Wheelchair user: side door');
  expect(await doorIsTold()).toEqual({ required: true, notes: ['Green wristband', 'Wheelchair user: side door'] });

  // A note with a control character is refused, and nothing changes.
  await card.locator('[data-field=note]').fill('bad\u0007note');
  await card.locator('form[data-action=ticket-attention] button[type=submit]').click();
  await eventually(() => page.locator('#lookup-results [role=alert]').textContent()).toContain('control character');
  expect(await doorIsTold()).toEqual({ required: true, notes: ['Green wristband', 'Wheelchair user: side door'] });

  // Cleared: the type's note alone, unflagged.
  await page.click('#lookup button[type=submit]');
  await card.locator('[data-field=attention]').uncheck();
  await card.locator('[data-field=note]').fill('');
  await card.locator('form[data-action=ticket-attention] button[type=submit]').click();
  await eventually(() => card.locator('dd').allTextContents()).toContain('Green wristband');
  expect(await doorIsTold()).toEqual({ required: false, notes: ['Green wristband'] });

  // The ticket type's rule, in the panel below the per-type counts (as `event ticket-type set`): the CLI's note is
  // there; flagged and given another note, every VIP ticket's answer carries it.
  const vipRow = page.locator('#type-notes li[data-type="VIP"]');
  await eventually(() => vipRow.locator('[data-field=note]').inputValue()).toBe('Green wristband');
  expect(await vipRow.locator('[data-field=attention]').isChecked()).toBe(false);
  await vipRow.locator('[data-field=attention]').check();
  await vipRow.locator('[data-field=note]').fill('Blue wristband');
  await vipRow.locator('form[data-action=type-attention] button[type=submit]').click();
  await eventually(doorIsTold).toEqual({ required: true, notes: ['Blue wristband'] });
  await eventually(() => page.locator('#announcer').textContent()).toContain('Rule of ticket type VIP saved');
  expect(await vipRow.locator('[data-field=attention]').isChecked()).toBe(true);
  expect(await vipRow.locator('[data-field=note]').inputValue()).toBe('Blue wristband');
  await page.locator('#type-notes').screenshot({ path: join(ROOT, 'test-results', 'e2e', 'dashboard-type-notes.png') });
  // A note with a control character is refused in the panel, and the door is told what it was told.
  await vipRow.locator('[data-field=note]').fill('bad\u0007note');
  await vipRow.locator('form[data-action=type-attention] button[type=submit]').click();
  await eventually(() => page.locator('#type-notes-problem').textContent()).toContain('control character');
  expect(await doorIsTold()).toEqual({ required: true, notes: ['Blue wristband'] });
  // Back as the CLI left it, unflagged.
  await page.locator('#type-notes li[data-type="VIP"] [data-field=attention]').uncheck();
  await page.locator('#type-notes li[data-type="VIP"] [data-field=note]').fill('Green wristband');
  await page.locator('#type-notes li[data-type="VIP"] form[data-action=type-attention] button[type=submit]').click();
  await eventually(doorIsTold).toEqual({ required: false, notes: ['Green wristband'] });
  await expect(page.locator('#type-notes-problem')).toBeHidden();

  // The same card in German (choosing a language reloads the page: look the ticket up again).
  await page.locator('#language-select').selectOption('de');
  await eventually(() => page.locator('#lookup h2').textContent()).not.toBe('Look up a ticket');
  await page.fill('#lookup-query', 'lovelace');
  await page.click('#lookup button[type=submit]');
  await eventually(() => card.textContent()).toContain('Am Eingang');
  expect(await card.locator('form[data-action=ticket-attention] button[type=submit]').textContent()).toBe('Notiz speichern');
  await eventually(() => page.locator('#type-notes h2').textContent()).toBe('Hinweise und Einlassnotizen pro Ticketart');
  expect(await page.locator('#type-notes li[data-type="VIP"] form[data-action=type-attention] button[type=submit]').textContent()).toBe(
    'Speichern',
  );

  // The page asks once before signing in and is refused (401), and the refused note answers 400: nothing else.
  expect(dashboard.pageErrors.filter((error) => !/status of (401|400)/.test(error))).toEqual([]);
});
