/**
 * Lanes in the staff settings (docs/kiosk.md "Several scanners"): name two
 * lanes and their directions, then scan the calibration code with each lane's
 * scanner in turn; the lanes and whether each one's scanner is plugged in;
 * forget them. Staff only (the PIN first when locked), like the gate's other settings.
 */
import type { GateDirection, KioskApi, KioskState, LanesRequest } from '../kiosk-bridge-types.js';
import { el, replaceChildren } from '../dom.js';
import { t } from '../messages/format.js';
import type { StaffGate } from './staff.js';
import { runStaffCall } from './staff-call.js';

const LANES_OFFERED = 2;

export class LaneSettings {
  readonly element: HTMLElement;
  private state: KioskState | null = null;
  /** StaffCallPanel: set while a staff call runs, and the problem it met. */
  problem: string | null = null;
  busy = false;
  /** The form's fields live across state updates, so typing is not lost when the state changes. */
  private readonly labels: HTMLInputElement[] = [];
  private readonly directions: HTMLSelectElement[] = [];

  constructor(
    private readonly kiosk: KioskApi,
    private readonly staff: StaffGate | null,
  ) {
    this.element = el('section', { class: 'lane-settings', 'data-lane-settings': '' });
    this.element.hidden = true;
    for (let index = 0; index < LANES_OFFERED; index++) {
      const number = String(index + 1);
      this.labels.push(
        el('input', {
          type: 'text',
          class: 'lane-settings__label',
          maxlength: '40',
          'aria-label': t('setup.lanes.lane_label', { number }),
          'data-lane-label-input': number,
        }),
      );
      const select = el(
        'select',
        { class: 'lane-settings__direction', 'aria-label': t('setup.lanes.direction', { number }), 'data-lane-direction-input': number },
        el('option', { value: '' }, t('setup.lanes.direction.kiosk')),
        el('option', { value: 'entry' }, t('setup.lanes.direction.entry')),
        el('option', { value: 'exit' }, t('setup.lanes.direction.exit')),
      );
      this.directions.push(select);
    }
  }

  update(state: KioskState): void {
    this.state = state;
    this.render();
  }

  private send(request: LanesRequest): void {
    runStaffCall(
      this,
      this.staff,
      () => this.kiosk.configureLanes(request),
      () => this.send(request),
    );
  }

  private startMapping(): void {
    const lanes = this.labels.map((input, index) => ({
      label: input.value.trim() || t('setup.lanes.lane_default', { number: String(index + 1) }),
      direction: (this.directions[index]!.value || null) as GateDirection | null,
    }));
    this.send({ action: 'map', lanes });
  }

  private button(action: string, text: string, onClick: () => void): HTMLButtonElement {
    const button = el('button', { type: 'button', class: 'button', 'data-action': action }, text);
    button.disabled = this.busy;
    button.addEventListener('click', onClick);
    return button;
  }

  render(): void {
    const state = this.state;
    if (!state || !state.enrolled) {
      this.element.hidden = true;
      replaceChildren(this.element);
      return;
    }
    this.element.hidden = false;
    const lanes = state.lanes ?? null;
    const title = el('h2', { class: 'staff-area__title' }, t('setup.lanes.title'));
    const problem = this.problem ? el('p', { class: 'staff__problem', role: 'alert' }, '✗ ', this.problem) : null;
    const mapping = lanes?.mapping ?? null;
    if (mapping) {
      replaceChildren(
        this.element,
        title,
        el(
          'p',
          { class: 'lane-settings__step', role: 'status', 'data-lane-mapping-step': String(mapping.step) },
          t('setup.lanes.step', { step: String(mapping.step), of: String(mapping.of), label: mapping.label }),
        ),
        mapping.problem
          ? el(
              'p',
              { class: 'staff__problem', role: 'alert', 'data-lane-mapping-problem': mapping.problem },
              t(mapping.problem === 'window' ? 'setup.lanes.problem.window' : 'setup.lanes.problem.already_mapped'),
            )
          : null,
        el(
          'div',
          { class: 'staff__buttons' },
          this.button('lanes-cancel', t('setup.lanes.cancel'), () => this.send({ action: 'cancel' })),
        ),
        problem,
      );
      return;
    }
    if (lanes && lanes.lanes.length > 0) {
      const windowLane = lanes.lanes.find((lane) => lane.id === lanes.window_lane);
      replaceChildren(
        this.element,
        title,
        el(
          'ul',
          { class: 'lane-settings__lanes', 'data-lanes': String(lanes.lanes.length) },
          ...lanes.lanes.map((lane) =>
            el(
              'li',
              {
                class:
                  lane.scanner !== null && !lane.connected ? 'lane-settings__lane lane-settings__lane--missing' : 'lane-settings__lane',
                'data-lane-row': lane.id,
                'data-lane-connected': String(lane.connected),
              },
              el('strong', {}, lane.label),
              ` · ${t(lane.direction === 'exit' ? 'setup.lanes.direction.exit' : 'setup.lanes.direction.entry')} · `,
              lane.scanner ?? t('setup.lanes.no_scanner'),
              lane.scanner ? ` · ${t(lane.connected ? 'setup.lanes.connected' : 'setup.lanes.missing')}` : '',
            ),
          ),
        ),
        windowLane ? el('p', { class: 'staff__hint' }, t('setup.lanes.window', { label: windowLane.label })) : null,
        lanes.source === 'file'
          ? el('p', { class: 'staff__hint', 'data-lanes-from-file': '' }, t('setup.lanes.from_file'))
          : el(
              'div',
              { class: 'staff__buttons' },
              this.button('lanes-forget', t('setup.lanes.forget'), () => this.send({ action: 'clear' })),
            ),
        problem,
      );
      return;
    }
    replaceChildren(
      this.element,
      title,
      el('p', { class: 'staff__hint' }, t('setup.lanes.none')),
      ...this.labels.map((input, index) =>
        el(
          'div',
          { class: 'lane-settings__row' },
          el('label', { class: 'lane-settings__field' }, t('setup.lanes.lane_label', { number: String(index + 1) }), input),
          el(
            'label',
            { class: 'lane-settings__field' },
            t('setup.lanes.direction', { number: String(index + 1) }),
            this.directions[index]!,
          ),
        ),
      ),
      el(
        'div',
        { class: 'staff__buttons' },
        this.button('lanes-map', t('setup.lanes.start'), () => this.startMapping()),
      ),
      problem,
    );
  }
}
