/**
 * Issuing a staff badge on the dashboard (docs/issuer.md "Admin dashboard"), end to end: the built
 * `ticket-issuer` CLI (init, admin-token reset, event), `serve --plain-http` as a child process on loopback, and
 * the built page in real Chromium.
 *
 * The form refuses an empty name in the page's words; a badge issued with a name, a role and an expiry typed in
 * the browser's local time is shown once as a QR that two independent decoders read off the screen, to a tstaff1.
 * code that protocol/staff-badge.ts verifies with the keys the issuer publishes, as a kiosk does; the badge is then
 * in the list, and `staff badge list` has it too. A refusal of the issuer (an expiry that has passed) is shown with
 * its message. The form in German.
 *
 * Needs the build (test/global-setup.ts does it); no keyring.
 */
import { expect } from '@playwright/test';
import { checkStaffBadge, decodeStaffBadge } from '../../protocol/staff-badge.js';
import type { PublicKey } from '../../protocol/types.js';
import { dashboardTest as test, eventually } from '../support/dashboard-page.js';
import { issuerCli } from '../support/door-harness.js';
import { decodeWithBoth, pngPixels } from '../support/qr-decoders.js';

test('issues a staff badge from the form: its QR, read off the screen, is a tstaff1. code the issuer’s key verifies; it is then listed', async ({
  dashboard,
}) => {
  const { dataDir, baseUrl, eid } = await dashboard.create({
    issuer: 'Harbour Lights Festival',
    event: 'Friday Night',
    venue: 'Pier 4',
    startsAt: new Date(Date.now() - 3600_000),
  });
  await dashboard.start();

  // Berlin: the expiry typed into the form is local time there, and goes to the issuer as UTC.
  const page = await dashboard.signIn({ timezoneId: 'Europe/Berlin', locale: 'en-GB' });
  await page.locator('#staff-badges-none').waitFor();

  // No name: the page says so, and asks the issuer nothing.
  await page.click('#issue-badge');
  await eventually(() => page.textContent('#badge-issue-problem')).toBe("Give the holder's name.");

  // A refusal of the issuer: an expiry that has passed.
  await page.fill('#badge-name', 'Kim Lee');
  await page.fill('#badge-expires', '2020-01-01T10:00');
  await page.click('#issue-badge');
  await eventually(() => page.textContent('#badge-issue-problem')).toBe('expires_at has passed; a badge must still be usable');
  expect(await page.locator('#badge-dialog').count()).toBe(0);

  // Kim Lee, supervisor, until 1 July 2099 23:30 in Berlin (summer time, UTC+2).
  await page.fill('#badge-name', 'Kim Lee');
  await page.locator('#badge-role').selectOption('supervisor');
  await page.fill('#badge-expires', '2099-07-01T23:30');
  await page.click('#issue-badge');
  const image = page.locator('#badge-qr-image');
  await image.waitFor();
  await expect(page.locator('#badge-dialog-title')).toHaveText('Staff badge of Kim Lee');
  expect(await page.textContent('#badge-dialog')).toContain('Supervisor · Friday Night');
  const sid = (await page.locator('#badge-dialog').getAttribute('data-sid'))!;
  expect(await page.textContent('#badge-dialog')).toContain(`Staff id ${sid}`);
  await eventually(async () => (await image.boundingBox())?.width ?? 0).toBeGreaterThan(300);

  // Two decoders read the same code off the screen.
  const [jsqr, zxing] = await decodeWithBoth(pngPixels(await image.screenshot()));
  expect(jsqr, 'jsqr reads the badge QR on screen').not.toBeNull();
  expect(zxing, 'zxing-cpp reads the same').toEqual([jsqr]);
  const code = jsqr!;
  expect(code.startsWith('tstaff1.')).toBe(true);

  // Verified as a kiosk verifies it: with the keys the issuer publishes, at this event.
  const discovery = (await (await fetch(`${baseUrl}/.well-known/ticket-issuer.json`)).json()) as { keys: PublicKey[] };
  const verdict = checkStaffBadge(code, { issuer: baseUrl, keys: discovery.keys, nowMs: Date.now(), eid, isRevoked: () => false });
  expect(verdict).toMatchObject({ ok: true, badge: { sid, name: 'Kim Lee', role: 'supervisor', eids: [eid] } });
  expect(decodeStaffBadge(code).payload.exp).toBe(Date.parse('2099-07-01T21:30:00Z') / 1000);
  expect(
    checkStaffBadge(code, { issuer: baseUrl, keys: discovery.keys, nowMs: Date.now(), eid: 'another', isRevoked: () => false }),
  ).toMatchObject({ ok: false, check: 'event' });

  // Closed, the code is gone from the page; the badge is in the list, valid, with its staff id.
  await page.click('#close-badge');
  await expect(page.locator('#badge-dialog')).toHaveCount(0);
  const row = page.locator(`#staff-badge-table tr[data-sid="${sid}"]`);
  await row.waitFor();
  expect(await row.textContent()).toContain('Kim Lee');
  expect(await row.textContent()).toContain('Supervisor');
  expect(await row.getAttribute('data-state')).toBe('valid');
  await expect(row.locator('button[data-action=revoke-badge]')).toBeVisible();
  expect(await page.content()).not.toContain(code.split('.')[1]!);
  expect(await page.inputValue('#badge-name')).toBe('');

  // The CLI sees the same badge.
  const { badges } = await issuerCli<{ badges: { sid: string; name: string; role: string; expires_at: string }[] }>(
    dataDir,
    'staff',
    'badge',
    'list',
    '--event',
    eid,
  );
  expect(badges).toEqual([expect.objectContaining({ sid, name: 'Kim Lee', role: 'supervisor', expires_at: '2099-07-01T21:30:00Z' })]);

  // The form in German.
  await page.locator('#language-select').selectOption('de');
  await eventually(() => page.textContent('#badge-issue-form h3')).toBe('Mitarbeiterausweis ausstellen');
  expect(await page.textContent('#issue-badge')).toBe('Ausweis ausstellen');

  // The page asks once before signing in and is refused (401), and the issuer's refusal above is a 400: the
  // browser logs those; nothing else may be.
  expect(dashboard.pageErrors.filter((error) => !/status of (401|400)/.test(error))).toEqual([]);
});
