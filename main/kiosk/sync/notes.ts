/**
 * The attention notes sync (docs/kiosk.md "Attention notes"; docs/protocol.md "Attention notes (project
 * extension)"): pages of the enrolled event's notes after the kept cursor, each applied in one transaction
 * (store/notes.ts). It runs beside the revocation list, with the same opening (revocation-sync.ts): the same
 * timer, the same key. An issuer without the endpoint has no notes: nothing is synced and the door shows none offline.
 */
import { notesUrlOf } from '../../../protocol/attention.js';
import type { DiscoveryDocument } from '../../../protocol/index.js';
import type { Enrollment, LocalStore } from '../store/local-store.js';
import type { IssuerClient, NotesCall } from './issuer-client.js';

/** A sync stops after this many pages and continues at the next (an issuer that never completes). */
const MAX_PAGES_PER_SYNC = 1_000;

export type NotesSyncOutcome =
  | { kind: 'synced'; changed: number; pages: number }
  | { kind: 'unsupported' }
  | { kind: 'failed'; call: Exclude<NotesCall, { kind: 'answered' }> | { kind: 'wrong_event'; eid: string } };

export interface NotesSyncDeps {
  store: LocalStore;
  client: IssuerClient;
  now: () => number;
}

export class NotesSync {
  private running: Promise<NotesSyncOutcome> | null = null;

  constructor(private readonly deps: NotesSyncDeps) {}

  /** One sync now; single-flight. */
  sync(enrollment: Enrollment, document: DiscoveryDocument, apiKey: string, timeoutMs: number): Promise<NotesSyncOutcome> {
    if (this.running) return this.running;
    const run = this.run(enrollment, document, apiKey, timeoutMs).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  private async run(enrollment: Enrollment, document: DiscoveryDocument, apiKey: string, timeoutMs: number): Promise<NotesSyncOutcome> {
    const url = notesUrlOf(document);
    if (url === null) return { kind: 'unsupported' };
    const notes = this.deps.store.attentionNotes;
    const before = notes.sync();
    let cursor = before && before.iss === enrollment.iss && before.eid === enrollment.eid ? before.cursor : null;
    let changed = 0;
    for (let pages = 1; pages <= MAX_PAGES_PER_SYNC; pages++) {
      const call = await this.deps.client.notes(url, apiKey, cursor, { timeoutMs });
      if (call.kind !== 'answered') return { kind: 'failed', call };
      const page = call.page;
      if (page.eid !== enrollment.eid) return { kind: 'failed', call: { kind: 'wrong_event', eid: page.eid } };
      notes.applyPage({
        iss: enrollment.iss,
        eid: enrollment.eid,
        tickets: page.tickets,
        types: page.types,
        ...(page.id_checks === undefined ? {} : { idChecks: page.id_checks }),
        ...(page.id_bands === undefined ? {} : { idBands: page.id_bands }),
        ...(page.parties === undefined ? {} : { parties: page.parties }),
        ...(page.handout_types === undefined ? {} : { handoutTypes: page.handout_types }),
        ...(page.handouts === undefined ? {} : { handouts: page.handouts }),
        cursor: page.next,
        // A first sync from nothing replaces whatever list there was (another event's, or none); `reset` likewise.
        reset: page.reset || cursor === null,
        syncedAt: page.complete ? new Date(this.deps.now()).toISOString() : null,
      });
      changed += page.tickets.length;
      cursor = page.next;
      if (page.complete) return { kind: 'synced', changed, pages };
    }
    return { kind: 'synced', changed, pages: MAX_PAGES_PER_SYNC };
  }
}
