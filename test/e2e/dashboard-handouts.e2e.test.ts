/**
 * Handouts and party tickets on the admin dashboard (docs/issuer.md "Handouts", "Admin dashboard"), end to end: the
 * built `ticket-issuer` CLI (init, admin-token reset, event, a party ticket, a scanner's setup code, `serve` on
 * loopback), the built dashboard in real Chromium, and a scanner giving a handout and asking the status endpoint.
 *
 * The ticket types panel sets the VIP type's items, one a line as `event ticket-type set --handout` takes them; the
 * door is told; a bad item is refused with the CLI's words and nothing changes. The handout counts panel shows given
 * of due per item and follows a handout given at the door on its own. The lookup card shows the party's counts and
 * each item with its last handout. The same panels in German. Needs the build (test/global-setup.ts does it).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { dashboardTest as test, eventually } from '../support/dashboard-page.js';
import { issuerCli, ROOT } from '../support/door-harness.js';
test("the admin sets a type's handouts, follows the counts per item, and sees a party ticket's counts and items", async ({ dashboard }) => {
  const { dataDir, baseUrl, eid } = await dashboard.create({
    issuer: 'Harbour Lights Festival',
    event: 'Friday Night',
    venue: 'Pier 4',
  });
  const issue = async (holder: string, ...flags: string[]): Promise<string> =>
    (
      await issuerCli<{ tickets: { tid: string }[] }>(
        dataDir,
        'ticket',
        'issue',
        '--event',
        eid,
        '--holder',
        holder,
        '--type',
        'VIP',
        ...flags,
      )
    ).tickets[0]!.tid;
  const family = await issue('Família Costa', '--party', '4', '--handout', 'cap');
  await issue('Ada Lovelace');
  const { setup_qr: setupQr } = await issuerCli<{ setup_qr: string }>(dataDir, 'scanner', 'setup', '--event', eid, '--gate', 'North');

  await dashboard.start();
  const { apiKey } = await dashboard.enroll(setupQr, { name: 'Kiosk 1' });
  const doorIsTold = async (): Promise<unknown> => {
    const response = await fetch(`${baseUrl}/api/v1/tickets/${family}/status`, { headers: { authorization: `Bearer ${apiKey}` } });
    return ((await response.json()) as { handouts?: Array<{ item: string; count: number }> }).handouts?.map(({ item, count }) => [
      item,
      count,
    ]);
  };

  const page = await dashboard.signIn();

  // The VIP type's items, one a line as `--handout` takes them.
  const vipRow = page.locator('#type-notes li[data-type="VIP"]');
  await eventually(() => vipRow.locator('[data-field=handouts]').inputValue()).toBe('');
  await vipRow.locator('[data-field=handouts]').fill('wristband\n2 drink voucher');
  await vipRow.locator('form[data-action=type-handouts] button[type=submit]').click();
  await eventually(() => page.locator('#announcer').textContent()).toContain('Handouts of ticket type VIP saved');
  await eventually(doorIsTold).toEqual([
    ['wristband', 1],
    ['drink voucher', 2],
    ['cap', 1],
  ]);
  expect(await vipRow.locator('[data-field=handouts]').inputValue()).toBe('wristband\n2 drink voucher');
  // A count of 0 is refused with the CLI's words, and the door is told what it was told.
  await vipRow.locator('[data-field=handouts]').fill('0 wristband');
  await vipRow.locator('form[data-action=type-handouts] button[type=submit]').click();
  await eventually(() => page.locator('#type-notes-problem').textContent()).toContain('count of 1 or more');
  expect(await doorIsTold()).toEqual([
    ['wristband', 1],
    ['drink voucher', 2],
    ['cap', 1],
  ]);

  // The counts per item: given of due (two VIP tickets), in a table with the words of each column.
  const row = (item: string) => page.locator(`#handout-counts tr[data-item="${item}"] td`);
  await eventually(() => row('wristband').allTextContents()).toEqual(['0', '2', '0']);
  expect(await row('drink voucher').allTextContents()).toEqual(['0', '4', '0']);
  expect(await row('cap').allTextContents()).toEqual(['0', '1', '0']);
  expect(await page.locator('#handout-counts th[scope=col]').allTextContents()).toEqual(['Item', 'Given', 'Due', 'Refused']);
  // A handout given at the door, and a second one refused: the panel follows with the other panels.
  const give = async (): Promise<string> => {
    const response = await fetch(`${baseUrl}/api/v1/tickets/handouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ handout_id: randomUUID(), tid: family, eid, item: 'wristband', given_at: new Date().toISOString() }),
    });
    return ((await response.json()) as { status: string }).status;
  };
  expect(await give()).toBe('given');
  expect(await give()).toBe('refused');
  await eventually(() => row('wristband').allTextContents()).toEqual(['1', '2', '1']);
  await page.locator('#handout-counts').screenshot({ path: join(ROOT, 'test-results', 'e2e', 'dashboard-handout-counts.png') });

  // The lookup card: the party's counts and each item, with the last handout's time and place.
  await page.fill('#lookup-query', 'familia costa');
  await page.click('#lookup button[type=submit]');
  const card = page.locator(`#lookup-results li[data-tid="${family}"]`);
  await eventually(() => card.locator('dd').allTextContents()).toContain('Ticket for 4 people: 0 inside, 0 admitted, 4 may still come');
  const facts = await card.locator('dd').allTextContents();
  expect(facts.some((fact) => /^wristband: 1 of 1 given · last \d\d:\d\d(:\d\d)? at Kiosk 1 \(North\)$/.test(fact))).toBe(true);
  expect(facts).toContain('drink voucher: 0 of 2 given');
  expect(facts).toContain('cap: 0 of 1 given');
  await card.screenshot({ path: join(ROOT, 'test-results', 'e2e', 'dashboard-lookup-handouts.png') });

  // In German (choosing a language reloads the page).
  await page.locator('#language-select').selectOption('de');
  await eventually(() => page.locator('#handout-counts h2').textContent()).toBe('Ausgaben pro Artikel');
  expect(await page.locator('#handout-counts th[scope=col]').allTextContents()).toEqual([
    'Artikel',
    'Ausgegeben',
    'Zustehend',
    'Abgelehnt',
  ]);
  expect(await page.locator('#type-notes li[data-type="VIP"] form[data-action=type-handouts] button[type=submit]').textContent()).toBe(
    'Ausgaben speichern',
  );
  await page.fill('#lookup-query', 'familia costa');
  await page.click('#lookup button[type=submit]');
  await eventually(() => card.locator('dd').allTextContents()).toContain(
    'Ticket für 4 Personen: 0 drin, 0 eingelassen, 4 dürfen noch kommen',
  );

  // The page asks once before signing in and is refused (401), and the refused list answers 400: nothing else.
  expect(dashboard.pageErrors.filter((error) => !/status of (401|400)/.test(error))).toEqual([]);
});
