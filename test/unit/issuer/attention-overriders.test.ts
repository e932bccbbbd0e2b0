/**
 * `checkins export`'s attention_overridden_by (issuer/services/checkins-export.ts withOverriders; docs/protocol.md
 * "The admin CLI"): an entry row names the staff id of the override at the kiosk that admitted it, between that
 * admission and the ticket's next.
 */
import { describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, withOverriders, type ExportRow } from '../../../issuer/services/checkins-export.js';

const row = (fields: Partial<ExportRow>): ExportRow =>
  ({ ...Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, null])), action: 'entry', ...fields }) as ExportRow;

describe('attention_overridden_by', () => {
  it('names the override of each admission, not of an earlier or later one, nor another kiosk', () => {
    const first = row({ tid: 't1', scanner_id: 'k1', scanned_at: '2026-12-01T19:00:00.000Z' });
    const again = row({ tid: 't1', scanner_id: 'k1', scanned_at: '2026-12-01T21:00:00.000Z' });
    const other = row({ tid: 't2', scanner_id: 'k2', scanned_at: '2026-12-01T19:00:00.000Z' });
    const exit = row({ tid: 't1', scanner_id: 'k1', scanned_at: '2026-12-01T20:00:00.000Z', action: 'exit' });
    withOverriders(
      [again, first, other, exit],
      [
        { scanner_id: 'k1', tid: 't1', at: '2026-12-01T19:00:03.000Z', staff_id: 'stf_kim' },
        { scanner_id: 'k1', tid: 't2', at: '2026-12-01T19:00:03.000Z', staff_id: 'stf_other_kiosk' },
      ],
    );
    expect(first.attention_overridden_by).toBe('stf_kim');
    expect(again.attention_overridden_by).toBeNull();
    expect(other.attention_overridden_by).toBeNull();
    expect(exit.attention_overridden_by).toBeNull();
  });
});
