/**
 * The issuer's admin dashboard (docs/issuer.md "Admin dashboard"), served at
 * /admin. Signs in with the admin token, then polls the event's overview
 * every couple of seconds (the issuer says how often) and redraws the live
 * figures without reloading the page.
 */
import type { EventOverview, SessionInfo } from '../issuer/dashboard-api.js';
import { buildActions, confirmScannerRevocation, confirmStaffBadgeRevocation, type ActionContext } from './actions.js';
import { ArrivalsChart } from './arrivals.js';
import { ApiProblem, createApi, forgetToken, storedToken, type AdminApi } from './api.js';
import { byId, fill, h } from './dom.js';
import { DoorPanel } from './door.js';
import { defaultEvent, formatClock, formatDateTime } from './format.js';
import { renderAlerts, renderGates, renderRate, renderTiles, renderTypes, ScannerTable } from './live.js';
import { languageMenu, startLanguage } from './language-menu.js';
import { t } from './messages/format.js';
import { showSignIn } from './sign-in.js';
import { WebhookTable } from './webhooks.js';
import { StaffBadgeTable } from './staff-badges.js';
import { StaffActionPanel } from './staff-actions.js';
import { TypeNotesPanel } from './type-notes.js';
import { HandoutCountsPanel } from './handouts.js';

const EVENT_KEY = 'ticket-issuer-admin-event';
startLanguage();
const root = byId('app');
root.textContent = t('app.loading');

interface Live {
  api: AdminApi;
  session: SessionInfo;
  eid: string;
  timer: number | null;
  /** Bumped on sign-out and event change: answers to older requests are dropped. */
  generation: number;
}

let live: Live | null = null;

function signOut(notice?: string, tokenNotSet = false): void {
  if (live?.timer != null) clearTimeout(live.timer);
  live = null;
  forgetToken();
  showSignIn(root, { notice, tokenNotSet, onSignedIn: start });
}

function signedOutBy(problem: ApiProblem): void {
  signOut(
    problem.reason === 'admin_token_not_set' ? t('signout.no_token_any_more') : t('signout.token_refused'),
    problem.reason === 'admin_token_not_set',
  );
}

function start(token: string, session: SessionInfo): void {
  const saved = sessionStorage.getItem(EVENT_KEY);
  const event = session.events.find((e) => e.eid === saved) ?? defaultEvent(session.events, Date.now());
  live = { api: createApi(token), session, eid: event?.eid ?? '', timer: null, generation: 0 };
  root.dataset.view = 'dashboard';

  const select = h(
    'select',
    { id: 'event-select', 'aria-label': t('header.event') },
    ...session.events.map((e) => h('option', { value: e.eid, selected: e.eid === live!.eid }, `${e.name} · ${formatDateTime(e.date)}`)),
  );
  select.addEventListener('change', () => {
    if (!live) return;
    live.eid = select.value;
    sessionStorage.setItem(EVENT_KEY, select.value);
    live.generation++;
    showLoading();
    poll();
  });
  const signOutButton = h('button', { type: 'button', class: 'secondary', id: 'sign-out' }, t('header.sign_out'));
  signOutButton.addEventListener('click', () => signOut(t('signout.done')));

  const context: ActionContext = { api: () => live!.api, eid: () => live!.eid, refresh: () => poll(), signedOut: signedOutBy };
  const scanners = new ScannerTable((scanner) => confirmScannerRevocation(context, scanner));
  const door = new DoorPanel(context);
  const badges = new StaffBadgeTable(context, (badge) => confirmStaffBadgeRevocation(context, badge));
  const staffActions = new StaffActionPanel(context);
  const arrivals = new ArrivalsChart();
  const webhooks = new WebhookTable(context);
  const typeNotes = new TypeNotesPanel(context);
  const handoutCounts = new HandoutCountsPanel(context);

  if (session.events.length === 0) {
    fill(
      root,
      header(session, null, signOutButton),
      h(
        'main',
        {},
        h(
          'section',
          { class: 'panel' },
          h('h2', {}, t('events.none.title')),
          h('p', {}, t('events.none.how', { command: 'ticket-issuer event create --name NAME --date ISO --venue VENUE' })),
        ),
      ),
    );
    return;
  }

  fill(
    root,
    header(session, select, signOutButton),
    h(
      'main',
      {},
      h('p', { id: 'live-status', class: 'live-status', role: 'status' }, t('app.loading')),
      h('section', { class: 'tiles', id: 'tiles' }),
      door.live,
      h('section', { class: 'panel alerts', id: 'alerts' }),
      arrivals.element,
      h('div', { class: 'columns' }, h('section', { class: 'panel', id: 'gates' }), h('section', { class: 'panel', id: 'types' })),
      typeNotes.element,
      handoutCounts.element,
      h(
        'div',
        { class: 'columns' },
        h('section', { class: 'panel', id: 'rate' }),
        h('section', { class: 'panel', id: 'scanners' }, scanners.element),
      ),
      badges.element,
      staffActions.element,
      webhooks.element,
      buildActions(context),
      door.settings,
      h(
        'p',
        { class: 'footnote' },
        `${t('footnote.online', { minutes: session.rules.online_window_seconds / 60 })} ` +
          t('footnote.double', { seconds: session.rules.late_scan_seconds }),
      ),
    ),
  );
  renderScanners = (overview) => scanners.update(overview.scanners, Date.parse(overview.generated_at));
  renderDoor = (overview) => door.update(overview);
  renderArrivals = (overview) => arrivals.update(overview.arrivals);
  renderTypeNotes = (overview) => typeNotes.update(overview);
  renderBadges = (overview) => {
    badges.refresh(Date.parse(overview.generated_at));
    staffActions.refresh();
    webhooks.refresh();
    handoutCounts.refresh();
  };
  poll();
}

let renderScanners: (overview: EventOverview) => void = () => {};
let renderDoor: (overview: EventOverview) => void = () => {};
let renderArrivals: (overview: EventOverview) => void = () => {};
let renderBadges: (overview: EventOverview) => void = () => {};
let renderTypeNotes: (overview: EventOverview) => void = () => {};

function header(session: SessionInfo, select: HTMLSelectElement | null, signOutButton: HTMLButtonElement): HTMLElement {
  return h(
    'header',
    { class: 'topbar' },
    h(
      'div',
      { class: 'brand' },
      h('span', { class: 'issuer-name' }, session.issuer.name),
      h('span', { class: 'product' }, t('header.product')),
    ),
    select === null ? null : h('label', { class: 'event-picker' }, h('span', {}, t('header.event')), select),
    languageMenu(),
    signOutButton,
  );
}

function showLoading(): void {
  const status = document.getElementById('live-status');
  if (status) status.textContent = t('app.loading');
}

function render(overview: EventOverview): void {
  const now = Date.parse(overview.generated_at);
  renderTiles(byId('tiles'), overview, now);
  renderAlerts(byId('alerts'), overview);
  renderGates(byId('gates'), overview);
  renderTypes(byId('types'), overview);
  renderTypeNotes(overview);
  renderRate(byId('rate'), overview);
  renderArrivals(overview);
  renderScanners(overview);
  renderDoor(overview);
  renderBadges(overview);
  const status = byId('live-status');
  status.textContent =
    t('live.updated', { time: formatClock(overview.generated_at) }) + (overview.complete ? '' : t('live.still_counting'));
  status.className = 'live-status ok';
  root.dataset.generatedAt = overview.generated_at;
}

/** One overview request now; the next is scheduled when it has answered, so requests never pile up. */
function poll(): void {
  const current = live;
  if (current === null || current.eid === '') return;
  if (current.timer !== null) clearTimeout(current.timer);
  current.timer = null;
  const generation = current.generation;
  const next = (): void => {
    if (live === current && current.generation === generation && current.timer === null) {
      current.timer = window.setTimeout(() => {
        current.timer = null;
        poll();
      }, current.session.rules.refresh_seconds * 1000);
    }
  };
  current.api
    .overview(current.eid)
    .then((overview) => {
      if (live !== current || current.generation !== generation) return;
      render(overview);
      next();
    })
    .catch((error: unknown) => {
      if (live !== current) return;
      if (error instanceof ApiProblem && error.status === 401) return signedOutBy(error);
      const status = document.getElementById('live-status');
      if (status) {
        status.textContent = t('live.not_updating', { problem: error instanceof ApiProblem ? error.message : t('live.error') });
        status.className = 'live-status stale';
      }
      next();
    });
}

async function boot(): Promise<void> {
  const token = storedToken();
  // Without a token, ask anyway: the refusal says whether this issuer has an admin token at all.
  try {
    const session = await createApi(token).session();
    if (token !== null) return start(token, session);
  } catch (error) {
    if (error instanceof ApiProblem && error.reason === 'admin_token_not_set') return signOut(undefined, true);
    if (error instanceof ApiProblem && error.status === 401 && token !== null) return signOut(t('signout.saved_token_refused'));
    if (error instanceof ApiProblem && error.status === 0) return signOut(error.message);
  }
  signOut();
}

void boot();
