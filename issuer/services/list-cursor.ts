/**
 * The cursor of a synced list (docs/protocol.md "The cursor, exact under concurrency"; the attention notes list keeps the same rule):
 * `<copy id>.<number>` of the list's sequence. A page starts after the cursor's number; a cursor of another copy
 * of the issuer, or one ahead of this copy, starts again from the beginning, and the page says so (`reset`).
 */

/** The sequence as read first: every number up to last_seq was committed with it, so the rows read next hold all of them. */
export interface ListSequence {
  copy_id: string;
  last_seq: number;
}

export function listCursor(copyId: string, seq: number): string {
  return `${copyId}.${seq}`;
}

/** Where the page after `since` starts in `sequence`: after a number, or from the beginning with reset. */
export function pageStart(since: string | undefined, sequence: ListSequence): { after: number; reset: boolean } {
  if (since === undefined) return { after: 0, reset: false };
  const [copyId, seq] = since.split('.') as [string, string];
  const number = Number(seq);
  if (copyId === sequence.copy_id && number <= sequence.last_seq) return { after: number, reset: false };
  return { after: 0, reset: true };
}
