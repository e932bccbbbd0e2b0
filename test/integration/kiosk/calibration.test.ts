/**
 * The calibration code at the kiosk core (docs/kiosk.md "Calibration"): a
 * real SQLite file, a real HTTP issuer on loopback. A US-layout scanner on a
 * German or French computer is learned once, then its tickets are admitted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CALIBRATION_CODE } from '../../../protocol/index.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import { mangleForLayout } from '../../../protocol/keyboard-layouts.js';
import { LoopbackIssuer, makeSigningKey } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let dir: { dir: string; cleanup: () => void };
let apiKeys: MemoryApiKeys;
const cores: KioskCore[] = [];

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
  apiKeys = new MemoryApiKeys();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close();
  dir.cleanup();
});

function openCore(): KioskCore {
  const core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys, autoDrain: false, onlineBudgetMs: 800 });
  cores.push(core);
  return core;
}

function kindOf(result: ScanResult): string {
  if (result.type !== 'verdict') return result.type;
  return result.verdict.kind === 'refuse' ? `refuse:${result.verdict.reason}` : result.verdict.kind;
}

describe.each(['de', 'fr'] as const)('a US-layout scanner typing into a %s computer', (layout) => {
  it('is learned from the calibration code before enrollment, then its tickets are admitted', async () => {
    const core = openCore();
    const calibrated = await core.scan(mangleForLayout(CALIBRATION_CODE, layout), {
      terminator: 'cr',
      prefixKeys: [],
      suffixKeys: [],
      units: 71,
      durationMs: 160,
    });
    expect(calibrated).toMatchObject({
      type: 'calibrated',
      diagnosis: { input_path: 'window', layout, translation: 'learned', terminator: 'cr' },
    });
    const state = await core.getState();
    expect(state.calibration).toMatchObject({ diagnosis: { layout }, translating: ['window'] });
    expect(core.readLog()[0]).toMatchObject({ kind: 'calibration', origin: 'window' });

    // The setup code itself arrives mangled too, and is translated.
    expect((await core.scan(mangleForLayout(issuer.setupCode(), layout))).type).toBe('enrolled');
    const { code, tid } = issuer.issueTicket();
    expect(await core.scan(mangleForLayout(code, layout))).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', ticket: { tid } } });
    // Translation is per input path: HID-POS sends bytes, not keys, and was not calibrated.
    expect(kindOf(await core.scanFrom('hid-pos', mangleForLayout(issuer.issueTicket().code, layout)))).toMatch(/^refuse:/);
  });

  it('is kept across a restart and forgotten on reset', async () => {
    const first = openCore();
    await first.scan(mangleForLayout(CALIBRATION_CODE, layout));
    // Once calibrated, everything from that path is translated: the setup code comes through the same scanner.
    await first.scan(mangleForLayout(issuer.setupCode(), layout));
    await first.close();

    const again = openCore();
    expect((await again.getState()).calibration?.translating).toEqual(['window']);
    expect(kindOf(await again.scan(mangleForLayout(issuer.issueTicket().code, layout)))).toBe('admit');
    const reset = await again.resetCalibration();
    expect('calibration' in reset && reset.calibration).toBeNull();
    expect(kindOf(await again.scan(mangleForLayout(issuer.issueTicket().code, layout)))).toMatch(/^refuse:/);
  });

  it('never makes a forged ticket valid: the signature decides after translation', async () => {
    const core = openCore();
    await core.scan(mangleForLayout(CALIBRATION_CODE, layout));
    await core.scan(mangleForLayout(issuer.setupCode(), layout));
    const kid = issuer.signingKeys[0]!.key.kid;
    const forger = makeSigningKey(77);
    const forged = issuer.issueTicket({ kid }, { ...forger, key: { ...forger.key, kid } });
    expect(kindOf(await core.scan(mangleForLayout(forged.code, layout)))).toBe('refuse:invalid_signature');
  });
});

describe('calibration through HID', () => {
  it('HID-POS: the report layout and symbology are part of the diagnosis; nothing to translate', async () => {
    const core = openCore();
    const result = await core.scanFrom(
      'hid-pos',
      CALIBRATION_CODE,
      { terminator: 'report_end', prefixKeys: [], suffixKeys: [], units: 2, durationMs: 3.2, layout: 'Honeywell (64-byte, report 2)' },
      ']Q1',
    );
    expect(result).toMatchObject({
      type: 'calibrated',
      diagnosis: {
        input_path: 'hid-pos',
        layout: 'us',
        translation: 'not_needed',
        terminator: 'report_end',
        hid_layout: 'Honeywell (64-byte, report 2)',
        symbology_id: ']Q1',
      },
    });
    expect((await core.getState()).calibration?.translating).toEqual([]);
  });

  it('a keyboard-mode scanner set to German, read over HID, and its window copy on a US computer: both learned, one check-in', async () => {
    const core = openCore();
    // The scanner's German setting changes the keys it sends: the HID decoder (US usages) reads the German mangling.
    await Promise.all([
      core.scanFrom('hid-keyboard', mangleForLayout(CALIBRATION_CODE, 'de')),
      core.scanFrom('window', mangleForLayout(CALIBRATION_CODE, 'de')),
    ]);
    expect((await core.getState()).calibration?.translating.sort()).toEqual(['hid-keyboard', 'window']);
    await core.scanFrom('hid-keyboard', mangleForLayout(issuer.setupCode(), 'de'));
    const { code } = issuer.issueTicket();
    const [hid, window] = await Promise.all([
      core.scanFrom('hid-keyboard', mangleForLayout(code, 'de')),
      core.scanFrom('window', mangleForLayout(code, 'de')),
    ]);
    expect(kindOf(hid)).toBe('admit');
    expect(window).toBe(hid);
    expect(issuer.checkInRequests()).toHaveLength(1);
  });
});
