/** The attention rule and the list's checks (protocol/attention.ts; docs/protocol.md "Attention notes (project extension)"). */
import { describe, expect, it } from 'vitest';
import { attentionFromAnswer, attentionOf, isNotesPage, noteProblem } from '../../../protocol/attention.js';

describe('attentionOf', () => {
  it("puts the type's note first, flags when either rule does, and is null when nothing applies", () => {
    expect(attentionOf({ attention: false, note: 'Green wristband' }, { attention: true, note: 'Side door' })).toEqual({
      required: true,
      notes: ['Green wristband', 'Side door'],
    });
    expect(attentionOf({ attention: true, note: null }, null)).toEqual({ required: true, notes: [] });
    expect(attentionOf(null, { attention: false, note: 'Side door' })).toEqual({ required: false, notes: ['Side door'] });
    expect(attentionOf(null, { attention: false, note: null })).toBeNull();
    expect(attentionOf(undefined, undefined)).toBeNull();
  });
});

describe('notes checks', () => {
  it('refuses empty, long and control-character notes', () => {
    expect(noteProblem('Side door')).toBeNull();
    expect(noteProblem('  ')).toContain('is empty');
    expect(noteProblem('x'.repeat(201))).toContain('keep it to 200');
    expect(noteProblem('a\u202eb')).toContain('U+202E');
  });

  it('accepts a well-formed page and refuses malformed rows', () => {
    const page = {
      eid: 'E',
      tickets: [
        ['T1', 1, 'Side door'],
        ['T2', 0, null],
      ],
      types: [],
      next: 'c.1',
      complete: true,
      reset: false,
    };
    expect(isNotesPage(page)).toBe(true);
    expect(isNotesPage({ ...page, tickets: [['T1', 2, null]] })).toBe(false);
    expect(isNotesPage({ ...page, tickets: [['T1', 1, 'bad\u0000']] })).toBe(false);
    expect(isNotesPage({ ...page, types: [{ ticket_type: 'VIP', attention: 'yes', note: null }] })).toBe(false);
    expect(attentionFromAnswer({ attention: { required: true, notes: ['a'] } })).toEqual({ required: true, notes: ['a'] });
    expect(attentionFromAnswer({ attention: { required: 'yes', notes: [] } })).toBeNull();
    expect(attentionFromAnswer({ status: 'valid' })).toBeNull();
  });
});
