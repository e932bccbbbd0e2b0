/**
 * The dashboard's actions: look a ticket up and revoke it, make a setup QR
 * for a gate (shown large, to be scanned off the screen), revoke a scanner or a staff badge,
 * download the check-ins as CSV. Each asks the issuer (the admin CLI's own
 * code behind /admin/api) and says in words what happened.
 */
import type { ScannerView, SetupCodeResult, StaffBadgeView, TicketView } from '../issuer/dashboard-api.js';
import { ApiProblem, type AdminApi } from './api.js';
import { announce, fill, h } from './dom.js';
import { formatDateTime, formatClock, labelOrNone, roleText, scannerLabel, staffText } from './format.js';
import { t, tn } from './messages/format.js';
import { snapToDevicePixel, wholePixelQrSize } from './qr-size.js';
import { handoutAndPartyFacts } from './handout-facts.js';
import { partyAnswerText, peoplePicker } from './party-picker.js';

export interface ActionContext {
  api: () => AdminApi;
  eid: () => string;
  /** After a change, so the live figures show it at once. */
  refresh: () => void;
  /** The admin token was refused: back to sign-in. */
  signedOut: (problem: ApiProblem) => void;
}

const problemText = (error: unknown): string => (error instanceof ApiProblem ? error.message : t('action.failed'));

/** A modal question; resolves with the reason typed (or '') when confirmed, null when cancelled. */
function confirmDialog(options: {
  id: string;
  title: string;
  body: string[];
  confirm: string;
  reasonLabel?: string;
  /** More to answer (a party's number): `problem` says what is missing, and the dialog stays open until it is given. */
  extra?: { node: HTMLElement; problem: () => string | null };
}): Promise<string | null> {
  return new Promise((resolve) => {
    const reason =
      options.reasonLabel === undefined
        ? null
        : h('input', { id: `${options.id}-reason`, type: 'text', maxlength: 200, autocomplete: 'off' });
    const confirm = h('button', { type: 'button', class: 'danger', id: `${options.id}-confirm` }, options.confirm);
    const cancel = h('button', { type: 'button', class: 'secondary' }, t('dialog.cancel'));
    const missing = h('p', { class: 'message', role: 'alert', 'data-dialog-problem': '' });
    const dialog = h(
      'dialog',
      { id: options.id, class: 'confirm', 'aria-labelledby': `${options.id}-title` },
      h('h2', { id: `${options.id}-title` }, options.title),
      ...options.body.map((line) => h('p', {}, line)),
      reason === null ? null : h('label', { for: reason.id }, options.reasonLabel!),
      reason,
      options.extra?.node,
      options.extra === undefined ? null : missing,
      h('div', { class: 'buttons' }, cancel, confirm),
    );
    let answer: string | null = null;
    // What was missing is given now: the words go.
    for (const type of ['click', 'input']) options.extra?.node.addEventListener(type, () => (missing.textContent = ''));
    confirm.addEventListener('click', () => {
      const problem = options.extra?.problem() ?? null;
      if (problem !== null) {
        missing.textContent = problem;
        return;
      }
      answer = reason?.value.trim() ?? '';
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    (reason ?? cancel).focus();
  });
}

/**
 * The ticket's own attention flag and check-in note, editable (docs/issuer.md "Attention flags and check-in
 * notes"); the card's facts show what the door is told, the type's note included.
 */
function attentionForm(ticket: TicketView, onSave: (ticket: TicketView, attention: boolean, note: string) => void): HTMLElement {
  const flag = h('input', { type: 'checkbox', id: `attention-${ticket.tid}`, 'data-field': 'attention' });
  flag.checked = ticket.attention;
  const note = h('input', { type: 'text', id: `note-${ticket.tid}`, maxlength: 200, autocomplete: 'off', 'data-field': 'note' });
  note.value = ticket.note ?? '';
  const form = h(
    'form',
    { class: 'attention-form', 'data-action': 'ticket-attention' },
    h('p', { class: 'muted' }, t('ticket.attention.legend')),
    h('label', { class: 'check' }, flag, ' ', t('ticket.attention.flag')),
    h('label', { for: note.id }, t('ticket.attention.note')),
    h('div', { class: 'row' }, note, h('button', { type: 'submit', class: 'secondary' }, t('ticket.attention.save'))),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSave(ticket, flag.checked, note.value);
  });
  return form;
}

function ticketCard(
  ticket: TicketView,
  onRevoke: (ticket: TicketView) => void,
  onAnnul: (ticket: TicketView) => void,
  onSaveAttention: (ticket: TicketView, attention: boolean, note: string) => void,
  onCheckIn: (ticket: TicketView) => void,
): HTMLElement {
  const statusWords: Record<TicketView['status'], string> = {
    valid: t('ticket.status.valid'),
    checked_in: t('ticket.status.checked_in'),
    revoked: t('ticket.status.revoked'),
    expired: t('ticket.status.expired'),
  };
  const facts: [string, string][] = [
    [t('ticket.fact.tid'), ticket.tid],
    [t('ticket.fact.type'), labelOrNone(ticket.ticket_type, '–')],
    [t('ticket.fact.event'), ticket.event_name],
  ];
  if (ticket.checked_in_at !== null) {
    facts.push([
      t('ticket.fact.checked_in'),
      formatDateTime(ticket.checked_in_at) +
        (ticket.checked_in_gate_id === null ? '' : t('ticket.fact.checked_in_gate', { gate: ticket.checked_in_gate_id })) +
        (ticket.checked_in_by === null ? '' : t('ticket.fact.checked_in_by', { scanner: ticket.checked_in_by })),
    ]);
  }
  // Who at the door let the holder in (docs/issuer.md "Admin dashboard").
  if (ticket.checked_in_staff !== null) facts.push([t('ticket.fact.checked_in_staff'), staffText(ticket.checked_in_staff)]);
  if (ticket.presence !== null) {
    const presenceWords = {
      inside: t('ticket.presence.inside'),
      outside: t('ticket.presence.outside'),
      annulled: t('ticket.presence.annulled'),
    };
    facts.push([t('ticket.fact.presence'), presenceWords[ticket.presence]]);
  }
  if (ticket.revoked_at !== null)
    facts.push([
      t('ticket.fact.revoked'),
      `${formatDateTime(ticket.revoked_at)}${ticket.revoke_reason === null ? '' : ` (${ticket.revoke_reason})`}`,
    ]);
  facts.push([t('ticket.fact.valid_until'), formatDateTime(ticket.expires_at)]);
  // docs/protocol.md "Attention notes (project extension)": the word, not a colour alone, and the notes in order.
  if (ticket.door_attention !== null)
    facts.push([
      t('ticket.fact.door_notes'),
      [ticket.door_attention.required ? t('ticket.attention.required') : null, ...ticket.door_attention.notes]
        .filter((part): part is string => part !== null)
        .join(' · '),
    ]);
  facts.push(...handoutAndPartyFacts(ticket));
  const revoke =
    ticket.status === 'revoked'
      ? null
      : h(
          'button',
          { type: 'button', class: 'danger', 'data-action': 'revoke-ticket', onclick: () => onRevoke(ticket) },
          t('ticket.revoke'),
        );
  // A check-in that stands (inside, or scanned out) can be undone; an annulled one is undone already.
  const annul =
    ticket.presence === 'inside' || ticket.presence === 'outside'
      ? h('button', { type: 'button', class: 'danger', 'data-action': 'annul-check-in', onclick: () => onAnnul(ticket) }, t('ticket.annul'))
      : null;
  // docs/issuer.md "Admin dashboard": a ticket not inside (or a party with people to come) may be checked in by hand,
  // with a reason; the issuer judges it.
  const checkIn =
    ticket.status === 'revoked' || ticket.status === 'expired' || (ticket.presence === 'inside' && (ticket.party?.remaining ?? 0) === 0)
      ? null
      : h('button', { type: 'button', 'data-action': 'manual-check-in', onclick: () => onCheckIn(ticket) }, t('ticket.manual'));
  return h(
    'li',
    { class: `ticket ticket-${ticket.status}`, 'data-tid': ticket.tid },
    h(
      'div',
      { class: 'ticket-head' },
      h('span', { class: 'ticket-holder' }, labelOrNone(ticket.holder_name, t('ticket.no_name'))),
      h('span', { class: `ticket-status status-${ticket.status}` }, statusWords[ticket.status]),
    ),
    h('dl', {}, ...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)])),
    attentionForm(ticket, onSaveAttention),
    h('div', { class: 'buttons' }, checkIn, annul, revoke),
  );
}

export function buildActions(context: ActionContext): HTMLElement {
  // Look up
  const query = h('input', {
    id: 'lookup-query',
    type: 'search',
    autocomplete: 'off',
    maxlength: 100,
    placeholder: t('lookup.placeholder'),
  });
  const results = h('div', { id: 'lookup-results', 'aria-live': 'polite' });
  let lastQuery = '';
  const runLookup = async (text: string): Promise<void> => {
    lastQuery = text;
    fill(results, h('p', { class: 'muted' }, t('lookup.searching')));
    try {
      const found = await context.api().lookup(context.eid(), text);
      if (text !== lastQuery) return;
      if (found.tickets.length === 0) {
        fill(results, h('p', { class: 'empty' }, t('lookup.none', { query: found.query })));
        return;
      }
      fill(
        results,
        h(
          'ol',
          { class: 'tickets' },
          ...found.tickets.map((ticket) => ticketCard(ticket, revokeTicket, annulCheckIn, saveAttention, checkInManually)),
        ),
        found.truncated ? h('p', { class: 'muted' }, tn('lookup.truncated', found.tickets.length)) : null,
      );
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      fill(results, h('p', { class: 'message', role: 'alert' }, problemText(error)));
    }
  };
  const revokeTicket = async (ticket: TicketView): Promise<void> => {
    const reason = await confirmDialog({
      id: 'revoke-ticket-dialog',
      title: t('ticket.revoke.title', { name: labelOrNone(ticket.holder_name, t('ticket.no_name')) }),
      body: [t('ticket.revoke.body', { tid: ticket.tid })],
      confirm: t('ticket.revoke'),
      reasonLabel: t('ticket.revoke.reason'),
    });
    if (reason === null) return;
    try {
      await context.api().revokeTicket(ticket.tid, reason);
      announce(t('ticket.revoked', { tid: ticket.tid }));
      context.refresh();
      await runLookup(lastQuery);
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      fill(results, h('p', { class: 'message', role: 'alert' }, problemText(error)));
    }
  };
  const saveAttention = async (ticket: TicketView, attention: boolean, note: string): Promise<void> => {
    try {
      await context.api().setTicketAttention(ticket.tid, { attention, note: note.trim() === '' ? null : note.trim() });
      announce(t('ticket.attention.saved', { tid: ticket.tid }));
      await runLookup(lastQuery);
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      fill(results, h('p', { class: 'message', role: 'alert' }, problemText(error)));
    }
  };
  const checkInManually = async (ticket: TicketView): Promise<void> => {
    // docs/issuer.md "Admin dashboard": a party with more than one to come asks how many come in now.
    const picker = (ticket.party?.remaining ?? 0) > 1 ? peoplePicker(ticket.party!.remaining) : null;
    const reason = await confirmDialog({
      id: 'manual-check-in-dialog',
      title: t('ticket.manual.title', { name: labelOrNone(ticket.holder_name, t('ticket.no_name')) }),
      body: [t('ticket.manual.body', { tid: ticket.tid })],
      confirm: t('ticket.manual'),
      reasonLabel: t('ticket.manual.reason'),
      ...(picker === null
        ? {}
        : { extra: { node: picker.node, problem: () => (picker.chosen() === null ? t('ticket.manual.people_required') : null) } }),
    });
    if (reason === null) return;
    if (reason === '') {
      fill(results, h('p', { class: 'message', role: 'alert' }, t('ticket.manual.reason_required')));
      return;
    }
    try {
      const answer = await context.api().checkInManually(ticket.tid, reason, picker?.chosen() ?? undefined);
      context.refresh();
      await runLookup(lastQuery);
      const party = partyAnswerText(answer);
      if (party !== null) {
        // In words on the page as well as announced: "3 of 5 in, 2 to come", or how many may still come.
        const refused = answer.status !== 'valid';
        results.prepend(h('p', { class: 'message', role: refused ? 'alert' : 'status', 'data-manual-party': answer.status }, party));
        announce(party);
      } else if (answer.status === 'valid') announce(t('ticket.manual.done', { tid: ticket.tid }));
      else
        results.prepend(
          h(
            'p',
            { class: 'message', role: 'alert', 'data-manual-refused': answer.status },
            t('ticket.manual.refused', { status: answer.status }),
          ),
        );
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      fill(results, h('p', { class: 'message', role: 'alert' }, problemText(error)));
    }
  };
  const annulCheckIn = async (ticket: TicketView): Promise<void> => {
    const reason = await confirmDialog({
      id: 'annul-dialog',
      title: t('ticket.annul.title', { name: labelOrNone(ticket.holder_name, t('ticket.no_name')) }),
      body: [t('ticket.annul.body', { tid: ticket.tid })],
      confirm: t('ticket.annul'),
      reasonLabel: t('ticket.annul.reason'),
    });
    if (reason === null) return;
    if (reason === '') {
      fill(results, h('p', { class: 'message', role: 'alert' }, t('ticket.annul.reason_required')));
      return;
    }
    try {
      await context.api().annulCheckIn(ticket.tid, reason);
      announce(t('ticket.annulled', { tid: ticket.tid }));
      context.refresh();
      await runLookup(lastQuery);
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      fill(results, h('p', { class: 'message', role: 'alert' }, problemText(error)));
    }
  };
  const lookupForm = h(
    'form',
    { class: 'inline-form', novalidate: true },
    h('label', { for: 'lookup-query' }, t('lookup.label')),
    h('div', { class: 'row' }, query, h('button', { type: 'submit', class: 'primary' }, t('lookup.submit'))),
  );
  lookupForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = query.value.trim();
    if (text !== '') void runLookup(text);
  });

  // Setup QR
  const gate = h('input', { id: 'setup-gate', type: 'text', autocomplete: 'off', maxlength: 80, placeholder: t('setup.gate_placeholder') });
  const setupMessage = h('p', { class: 'message', role: 'alert' });
  const setupForm = h(
    'form',
    { class: 'inline-form', novalidate: true },
    h('label', { for: 'setup-gate' }, t('setup.gate_label')),
    h('div', { class: 'row' }, gate, h('button', { type: 'submit', class: 'primary', id: 'create-setup' }, t('setup.create'))),
    setupMessage,
  );
  setupForm.addEventListener('submit', (event) => {
    event.preventDefault();
    setupMessage.textContent = '';
    context
      .api()
      .createSetupCode(context.eid(), gate.value.trim())
      .then((setup) => showSetupCode(context, setup))
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
        setupMessage.textContent = problemText(error);
      });
  });

  // Export
  const exportMessage = h('p', { class: 'message', role: 'status' });
  const exportButton = h('button', { type: 'button', class: 'primary', id: 'export-csv' }, t('export.download'));
  exportButton.addEventListener('click', () => {
    exportMessage.textContent = t('export.preparing');
    context
      .api()
      .exportCsv(context.eid())
      .then(({ blob, filename }) => {
        const url = URL.createObjectURL(blob);
        const link = h('a', { href: url, download: filename, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
        exportMessage.textContent = t('export.downloaded', { filename });
      })
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
        exportMessage.textContent = problemText(error);
      });
  });

  return h(
    'section',
    { class: 'actions', id: 'actions' },
    h('div', { class: 'panel action', id: 'lookup' }, h('h2', {}, t('lookup.title')), lookupForm, results),
    h('div', { class: 'panel action', id: 'setup' }, h('h2', {}, t('setup.title')), h('p', { class: 'muted' }, t('setup.lead')), setupForm),
    h(
      'div',
      { class: 'panel action', id: 'export' },
      h('h2', {}, t('export.title')),
      h('p', { class: 'muted' }, t('export.lead')),
      exportButton,
      exportMessage,
    ),
  );
}

/**
 * Sizes a QR image in its frame. The frame's size comes from the stylesheet (as large as the screen allows); the
 * code inside it gets a whole number of device pixels per module (docs/issuer.md "QR codes"). The image's intrinsic
 * width is its side in modules (issuer/admin/qr.ts qrSvgDataUrl). Fits on load and on every resize or zoom until
 * the returned function `stop` is called; `fit` fits now.
 */
export function wholePixelFit(frame: HTMLElement, image: HTMLImageElement): { fit: () => void; stop: () => void } {
  const fit = (): void => {
    if (image.naturalWidth === 0) return;
    const ratio = window.devicePixelRatio;
    const side = `${wholePixelQrSize(Math.min(frame.clientWidth, frame.clientHeight), image.naturalWidth, ratio)}px`;
    image.style.width = side;
    image.style.height = side;
    // Centred in its frame, it may start half a pixel off: nudge it onto a device pixel.
    image.style.left = '0px';
    image.style.top = '0px';
    const box = image.getBoundingClientRect();
    image.style.left = `${snapToDevicePixel(box.left, ratio)}px`;
    image.style.top = `${snapToDevicePixel(box.top, ratio)}px`;
  };
  image.addEventListener('load', fit);
  window.addEventListener('resize', fit);
  return { fit, stop: () => window.removeEventListener('resize', fit) };
}

/** The setup QR, as large as the screen allows, with what it does and a way to revoke it if it will not be used. */
function showSetupCode(context: ActionContext, setup: SetupCodeResult): void {
  const status = h('p', { class: 'message', role: 'status', id: 'setup-status' });
  const revoke = h('button', { type: 'button', class: 'danger', id: 'revoke-setup' }, t('setup.revoke'));
  const done = h('button', { type: 'button', class: 'primary', id: 'close-setup' }, t('setup.done'));
  const image = h('img', {
    id: 'setup-qr-image',
    src: setup.qr_image,
    alt:
      setup.gate_id === null
        ? t('setup.qr_alt', { event: setup.event_name })
        : t('setup.qr_alt_gate', { event: setup.event_name, gate: setup.gate_id }),
  });
  const frame = h('div', { class: 'setup-qr' }, image);
  const fit = wholePixelFit(frame, image);
  const dialog = h(
    'dialog',
    { id: 'setup-dialog', class: 'setup', 'aria-labelledby': 'setup-title' },
    frame,
    h(
      'div',
      { class: 'setup-text' },
      h('h2', { id: 'setup-title' }, t('setup.scan_this')),
      h(
        'p',
        { class: 'setup-scope' },
        setup.gate_id === null
          ? t('setup.scope_all_gates', { event: setup.event_name })
          : t('setup.scope_gate', { event: setup.event_name, gate: setup.gate_id }),
      ),
      h('p', {}, t('setup.single_use', { date: formatDateTime(setup.expires_at) })),
      setup.tls_cert_sha256 === null ? null : h('p', { class: 'muted' }, t('setup.pins_certificate')),
      h('p', { class: 'muted' }, t('setup.code_id', { id: setup.token_id, time: formatClock(new Date().toISOString()) })),
      status,
      h('div', { class: 'buttons' }, revoke, done),
    ),
  );
  revoke.addEventListener('click', () => {
    context
      .api()
      .revokeSetupCode(setup.token_id)
      .then(() => {
        status.textContent = t('setup.revoked');
        dialog.querySelector('.setup-qr')?.classList.add('revoked');
        revoke.hidden = true;
      })
      .catch((error: unknown) => {
        status.textContent = problemText(error);
      });
  });
  openQrDialog(context, dialog, fit, done, t('setup.ready'));
}

/**
 * A dialog showing a QR code once (a setup code, a staff badge): opened modal with the code fitted to the
 * screen and Done focused; closing it stops the fitting, removes it and refreshes the page's lists.
 */
export function openQrDialog(
  context: ActionContext,
  dialog: HTMLDialogElement,
  fit: { fit: () => void; stop: () => void },
  done: HTMLButtonElement,
  announcement: string,
): void {
  done.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => {
    fit.stop();
    dialog.remove();
    context.refresh();
  });
  document.body.append(dialog);
  dialog.showModal();
  fit.fit();
  done.focus();
  announce(announcement);
}

export function confirmScannerRevocation(context: ActionContext, scanner: ScannerView): void {
  void confirmDialog({
    id: 'revoke-scanner-dialog',
    title: t('scanner.revoke.title', { name: scannerLabel(scanner) }),
    body: [
      scanner.gate_id === null
        ? t('scanner.revoke.scope_all', { id: scanner.api_key_id })
        : t('scanner.revoke.scope_gate', { gate: scanner.gate_id, id: scanner.api_key_id }),
      t('scanner.revoke.body'),
    ],
    confirm: t('scanner.revoke.confirm'),
  }).then(async (answer) => {
    if (answer === null) return;
    try {
      await context.api().revokeScanner(scanner.api_key_id);
      announce(t('scanner.revoked', { name: scannerLabel(scanner) }));
      context.refresh();
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      announce(problemText(error));
    }
  });
}

/** docs/issuer.md "Staff roles and badges": revoking is final; the reason is kept with it. */
export function confirmStaffBadgeRevocation(context: ActionContext, badge: StaffBadgeView): void {
  void confirmDialog({
    id: 'revoke-badge-dialog',
    title: t('badge.revoke.title', { name: badge.name }),
    body: [t('badge.revoke.scope', { role: roleText(badge.role), sid: badge.sid }), t('badge.revoke.body')],
    confirm: t('badge.revoke.confirm'),
    reasonLabel: t('badge.revoke.reason'),
  }).then(async (reason) => {
    if (reason === null) return;
    try {
      await context.api().revokeStaffBadge(badge.sid, reason);
      announce(t('badge.revoked', { name: badge.name }));
      context.refresh();
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 401) return context.signedOut(error);
      announce(problemText(error));
    }
  });
}
