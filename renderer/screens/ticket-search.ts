/**
 * "Find a ticket" (docs/kiosk.md "Finding a ticket"): staff type a holder's name, the short id under the QR
 * code or the ticket id; the issuer's results show name, status, presence, type, notes, handouts (given of due, the
 * last one's when and where) and a party's counts, and a result can be checked in by hand with a reason (required);
 * a party ticket's asks how many of it come in, 1 to what remains, with the PARTY screen's buttons. The answer is a verdict the door shows as it shows a scan's, so
 * the dialog closes for it; any other answer is said here. An overlay over the screen, like the annul dialog.
 *
 * Its input fields are typing targets: the keyboard-wedge capture leaves them alone (isSearchInput), so what
 * staff type is never taken as a scan. The kiosk core enforces the role; this asks for the PIN first.
 */
import { el, replaceChildren } from '../dom.js';
import { verdictIcon } from '../icons.js';
import { attempt } from '../kiosk-bridge.js';
import type { FoundTicket, KioskApi, KioskState, StaffLocked } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import { foundTicketView, manualProblem, manualReason, searchProblem } from '../view/search-view-model.js';
import { holderNameElement } from './holder-name.js';
import { partyButtons } from './party.js';
import type { StaffGate } from './staff.js';

const QUERY_INPUT_ID = 'ticket-search-input';
const REASON_INPUT_ID = 'ticket-search-reason';

type Step = 'closed' | 'search' | 'reason';

export class TicketSearchDialog {
  private readonly overlay: HTMLElement;
  private readonly queryInput: HTMLInputElement;
  private step: Step = 'closed';
  private busy = false;
  private results: FoundTicket[] = [];
  private more = false;
  /** The line under the search (no results, offline …) or under the reason (a refusal, a missing reason). */
  private problem: string | null = null;
  private target: FoundTicket | null = null;
  /** For a party ticket's check-in: how many of it come in now (picked in the reason step), or null. */
  private people: number | null = null;
  private offline = false;

  constructor(
    doc: Document,
    private readonly kiosk: KioskApi,
    private readonly staff: StaffGate | null,
  ) {
    this.overlay = el('div', { class: 'annul-overlay search-overlay', role: 'dialog', 'aria-modal': 'true', 'data-search-dialog': '' });
    this.overlay.hidden = true;
    this.overlay.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      if (this.busy) return;
      if (this.step === 'reason') this.show('search');
      else this.close();
    });
    // Built once: re-rendering must not throw away what staff are typing.
    this.queryInput = el('input', {
      id: QUERY_INPUT_ID,
      class: 'lookup__input',
      type: 'search',
      autocomplete: 'off',
      spellcheck: 'false',
      maxlength: '200',
    });
    doc.body.append(this.overlay);
  }

  isOpen(): boolean {
    return this.step !== 'closed';
  }

  /** Every state push: offline, the dialog says at once that the search needs the issuer. */
  update(state: KioskState): void {
    const offline = state.connection === 'offline';
    if (offline === this.offline) return;
    this.offline = offline;
    if (this.step !== 'closed') this.render();
  }

  open(): void {
    const open = (): void => {
      this.results = [];
      this.more = false;
      this.problem = null;
      this.queryInput.value = '';
      this.show('search');
    };
    if (this.staff) this.staff.whenUnlocked(open);
    else open();
  }

  private show(step: Step): void {
    this.step = step;
    if (step !== 'reason') {
      this.target = null;
      this.people = null;
    }
    this.render();
    const focus = step === 'reason' ? `#${REASON_INPUT_ID}` : `#${QUERY_INPUT_ID}`;
    this.overlay.querySelector<HTMLElement>(focus)?.focus();
  }

  private close(): void {
    this.step = 'closed';
    this.target = null;
    this.render();
  }

  private async search(query: string): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.render();
    const answer = await this.staffCall(() => this.kiosk.searchTickets(query));
    this.busy = false;
    this.results = answer?.type === 'results' ? answer.results : [];
    this.more = answer?.type === 'results' && answer.more;
    this.problem = searchProblem(answer);
    this.show('search');
  }

  private async checkIn(ticket: FoundTicket, reason: string, people: number | null): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.render();
    const answer = await this.staffCall(() =>
      people === null ? this.kiosk.manualCheckIn(ticket.tid, reason) : this.kiosk.manualCheckIn(ticket.tid, reason, people),
    );
    this.busy = false;
    this.problem = manualProblem(answer);
    // A verdict: the state push shows it on the door's screen, over which this dialog must not stay.
    if (this.problem === null) this.close();
    else this.render();
  }

  /** One staff call; if the unlock ran out meanwhile, the PIN dialog and the same call once more. */
  private async staffCall<T extends { type: string }>(call: () => Promise<T | StaffLocked>): Promise<T | StaffLocked | null> {
    const once = (): Promise<T | StaffLocked | null> => attempt(call).then((result) => (result.ok ? result.value : null));
    const answer = await once();
    if (answer?.type !== 'staff_locked' || !this.staff) return answer;
    this.overlay.hidden = true;
    const unlocked = await this.staff.unlocked();
    this.overlay.hidden = this.step === 'closed';
    return unlocked ? once() : answer;
  }

  private render(): void {
    const overlay = this.overlay;
    if (this.step === 'closed') {
      overlay.hidden = true;
      delete overlay.dataset['searchStep'];
      replaceChildren(overlay);
      return;
    }
    overlay.hidden = false;
    overlay.dataset['searchStep'] = this.busy ? 'busy' : this.step;
    const panel = el('div', { class: 'annul-panel search-panel' });
    panel.append(...(this.step === 'reason' && this.target ? this.reasonContent(this.target) : this.searchContent()));
    replaceChildren(overlay, panel);
  }

  private searchContent(): Node[] {
    const form = el(
      'form',
      { class: 'lookup__form' },
      el('label', { for: QUERY_INPUT_ID }, t('search.input_label')),
      el(
        'div',
        { class: 'lookup__row' },
        this.queryInput,
        el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'search-submit' }, t('search.submit')),
      ),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const query = this.queryInput.value.trim();
      if (query) void this.search(query);
    });
    const close = el('button', { type: 'button', class: 'button', 'data-action': 'search-close' }, t('search.close'));
    close.addEventListener('click', () => this.close());
    const status = this.busy
      ? el('p', { class: 'lookup__headline', role: 'status', 'data-search-busy': '' }, t('search.searching'))
      : this.problem
        ? el('p', { class: 'lookup__headline', role: 'alert', 'data-search-problem': '' }, this.problem)
        : null;
    const parts: (HTMLElement | null)[] = [
      el('h1', { class: 'annul__title' }, t('search.title')),
      el('p', { class: 'lookup__instruction' }, t('search.instruction')),
      this.offline ? el('p', { class: 'staff__problem', role: 'status', 'data-search-offline': '' }, t('search.offline')) : null,
      form,
      status,
      el('ul', { class: 'search__results', 'data-search-results': '' }, ...this.results.map((ticket) => this.resultItem(ticket))),
      this.more ? el('p', { class: 'lookup__instruction', 'data-search-more': '' }, t('search.more')) : null,
      close,
    ];
    return parts.filter((node): node is HTMLElement => node !== null);
  }

  private resultItem(ticket: FoundTicket): HTMLElement {
    const view = foundTicketView(ticket);
    const checkIn = el(
      'button',
      { type: 'button', class: 'button button--primary', 'data-action': 'search-check-in' },
      t('search.check_in'),
    );
    checkIn.addEventListener('click', () => {
      this.target = ticket;
      this.problem = null;
      this.show('reason');
    });
    return el(
      'li',
      { class: 'search__result', 'data-tid': view.tid, 'data-status': view.dataStatus },
      // The verdict's and the lookup's element (docs/kiosk.md "Holder names"): two lines at most, shrunk with
      // its length, an ellipsis only past the floor, the whole name in its title.
      el('p', { class: 'lookup__headline search__holder', 'data-search-holder': '' }, holderNameElement(view.name)),
      el('ul', { class: 'lookup__details' }, ...view.lines.map((line) => el('li', {}, line))),
      view.notes ? el('p', { class: 'search__notes', 'data-search-notes': '' }, view.notes) : null,
      ...this.extras(view),
      checkIn,
    );
  }

  /** A party's size and counts, and the handouts (docs/kiosk.md "Finding a ticket"): large, in words, never colour alone. */
  private extras(view: ReturnType<typeof foundTicketView>): (HTMLElement | null)[] {
    return [
      view.party === null
        ? null
        : el(
            'p',
            { class: 'search__party', 'data-search-party': String(view.party.remaining) },
            verdictIcon('party', '👥', 'search__icon'),
            ` ${view.party.size} · ${view.party.known}`,
          ),
      view.handouts.length === 0
        ? null
        : el(
            'div',
            { class: 'search__handouts', 'data-search-handouts': '' },
            el('p', { class: 'search__handouts-title' }, t('handout.title')),
            el('ul', {}, ...view.handouts.map((line) => el('li', { 'data-search-handout': '' }, line))),
          ),
    ];
  }

  /** The reason step's "How many come in now?" for a party ticket with people to come: one button a number. */
  private peoplePicker(ticket: FoundTicket): HTMLElement | null {
    const remaining = ticket.party?.remaining ?? 0;
    if (remaining < 1) return null;
    const button = (people: number): HTMLElement => {
      const chosen = this.people === people;
      const node = el(
        'button',
        {
          type: 'button',
          class: `button search__people${chosen ? ' search__people--chosen' : ''}`,
          'data-action': 'search-people',
          'data-people': String(people),
          'aria-pressed': String(chosen),
        },
        // The chosen number says so in a mark as well as its colour.
        chosen ? `✓ ${people}` : String(people),
      );
      node.addEventListener('click', () => {
        this.people = people;
        this.problem = null;
        this.render();
        this.overlay.querySelector<HTMLElement>(`#${REASON_INPUT_ID}`)?.focus();
      });
      return node;
    };
    return el(
      'fieldset',
      { class: 'search__people-picker', 'data-search-people': String(remaining) },
      el('legend', {}, t('party.question')),
      el('div', { class: 'search__people-row' }, ...partyButtons(remaining).map(button)),
    );
  }

  private reasonContent(ticket: FoundTicket): Node[] {
    const view = foundTicketView(ticket);
    // The reason typed so far survives a re-render (a number picked after the reason was typed).
    const typed = this.overlay.querySelector<HTMLInputElement>(`#${REASON_INPUT_ID}`)?.value ?? '';
    const input = el('input', {
      id: REASON_INPUT_ID,
      class: 'annul__input',
      type: 'text',
      autocomplete: 'off',
      maxlength: '200',
      required: '',
    });
    const form = el(
      'form',
      { class: 'annul__form' },
      el('label', { for: REASON_INPUT_ID }, t('search.reason_label')),
      el(
        'div',
        { class: 'annul__row' },
        input,
        el('button', { type: 'submit', class: 'button button--primary', 'data-action': 'search-confirm' }, t('search.confirm')),
      ),
    );
    input.value = typed;
    form.noValidate = true;
    const picker = this.peoplePicker(ticket);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const reason = manualReason(input.value);
      if (picker !== null && this.people === null) {
        this.problem = t('search.people_required');
        this.render();
      } else if (reason) void this.checkIn(ticket, reason, picker === null ? null : this.people);
      else {
        this.problem = t('search.reason_required');
        this.render();
        this.overlay.querySelector<HTMLElement>(`#${REASON_INPUT_ID}`)?.focus();
      }
    });
    const cancel = el('button', { type: 'button', class: 'button', 'data-action': 'search-cancel' }, t('staff.cancel'));
    cancel.addEventListener('click', () => {
      this.problem = null;
      this.show('search');
    });
    const parts: (HTMLElement | null)[] = [
      el('h1', { class: 'annul__title' }, t('search.reason_title')),
      el(
        'div',
        { class: 'annul__ticket search__target', 'data-search-target': ticket.tid },
        el('p', { class: 'search__holder' }, holderNameElement(view.name)),
        el('p', {}, view.lines.join(' · ')),
        ...this.extras(view),
      ),
      picker,
      form,
      this.busy ? el('p', { class: 'annul__busy', role: 'status', 'data-search-busy': '' }, t('search.checking_in')) : null,
      this.problem && !this.busy
        ? el('p', { class: 'staff__problem', role: 'alert', 'data-search-problem': '' }, '✗ ', this.problem)
        : null,
      cancel,
    ];
    return parts.filter((node): node is HTMLElement => node !== null);
  }
}

/** Is `target` one of the dialog's fields (the keyboard-wedge capture leaves them alone)? */
export function isSearchInput(target: EventTarget | null): boolean {
  return target instanceof HTMLInputElement && (target.id === QUERY_INPUT_ID || target.id === REASON_INPUT_ID);
}
