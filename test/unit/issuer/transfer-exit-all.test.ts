/**
 * The import's rule for check-out at a set time (issuer/transfer/exit-all.ts mergedExitAll; docs/issuer.md "Moving
 * an issuer to the venue and back", format version 8): which setting stands, and how far each copy has applied it.
 */
import { describe, expect, it } from 'vitest';
import { mergedExitAll } from '../../../issuer/transfer/exit-all.js';

const setting = (extra: Record<string, string | null> = {}) => ({
  eid: 'E1',
  at: '04:00',
  time_zone: 'Europe/Berlin',
  since: '2026-07-10T12:00:00Z',
  done: '2026-07-11T02:00:00.000Z',
  ...extra,
});

describe('mergedExitAll', () => {
  it("a data dir created from the file takes the file's row as it is; an existing one takes it with no moment done", () => {
    expect(mergedExitAll(undefined, setting(), true)).toEqual(setting());
    expect(mergedExitAll(undefined, setting(), false)).toEqual(setting({ done: null }));
  });

  it('the same setting keeps the earlier progress of the two (none done is the earliest)', () => {
    const later = setting({ done: '2026-07-12T02:00:00.000Z' });
    expect(mergedExitAll(setting(), later, false)).toBeNull();
    expect(mergedExitAll(later, setting(), false)).toEqual(setting());
    expect(mergedExitAll(setting(), setting({ done: null }), false)).toEqual(setting({ done: null }));
    expect(mergedExitAll(setting({ done: null }), setting(), false)).toBeNull();
    expect(mergedExitAll(setting(), setting(), false)).toBeNull();
  });

  it('a setting made later in the file stands, with no moment done here; an earlier or same-time one does not', () => {
    const newer = setting({ at: '05:30', since: '2026-07-11T09:00:00Z' });
    expect(mergedExitAll(setting(), newer, false)).toEqual({ ...newer, done: null });
    expect(mergedExitAll(newer, setting(), false)).toBeNull();
    expect(mergedExitAll(setting(), setting({ at: '2026-07-12T04:00:00Z', time_zone: 'UTC' }), false)).toBeNull();
  });
});
