/** The `revocations` section of kiosk-config.json (docs/kiosk.md "Revocation list"): IT's two settings, checked field by field. */
import { describe, expect, it } from 'vitest';
import { parseRevocationSettings } from '../../../main/kiosk/sync/revocation-sync.js';

describe('revocation settings in kiosk-config.json', () => {
  it('absent: the defaults stand (nothing set); each field alone, in its unit', () => {
    expect(parseRevocationSettings({})).toEqual({});
    expect(parseRevocationSettings({ lanes: [] })).toEqual({});
    expect(parseRevocationSettings({ revocations: {} })).toEqual({});
    expect(parseRevocationSettings({ revocations: { sync_every_seconds: 300 } })).toEqual({ syncIntervalMs: 300_000 });
    expect(parseRevocationSettings({ revocations: { warn_after_minutes: 30 } })).toEqual({ maxAgeMs: 1_800_000 });
    expect(parseRevocationSettings({ revocations: { sync_every_seconds: 10, warn_after_minutes: 1440 } })).toEqual({
      syncIntervalMs: 10_000,
      maxAgeMs: 86_400_000,
    });
  });

  it('refuses what it does not know or cannot use, naming the field and the range', () => {
    const refusals: [unknown, RegExp][] = [
      [[], /expected a JSON object/],
      [{ revocations: 60 }, /"revocations" must be an object/],
      [{ revocations: { sync_every_seconds: 9 } }, /revocations\.sync_every_seconds must be a whole number from 10 to 3600/],
      [{ revocations: { sync_every_seconds: 3601 } }, /from 10 to 3600/],
      [{ revocations: { sync_every_seconds: 60.5 } }, /from 10 to 3600/],
      [{ revocations: { sync_every_seconds: '60' } }, /from 10 to 3600/],
      [{ revocations: { warn_after_minutes: 0 } }, /revocations\.warn_after_minutes must be a whole number from 1 to 1440/],
      [
        { revocations: { sync_every_minutes: 1 } },
        /revocations\.sync_every_minutes is not a setting \(sync_every_seconds, warn_after_minutes\)/,
      ],
    ];
    for (const [config, message] of refusals) expect(() => parseRevocationSettings(config, '/etc/kiosk-config.json')).toThrow(message);
    expect(() => parseRevocationSettings({ revocations: { warn_after_minutes: 0 } }, '/etc/kiosk-config.json')).toThrow(
      /^\/etc\/kiosk-config\.json: /,
    );
  });
});
