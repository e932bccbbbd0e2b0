/**
 * The split door screen of a kiosk with several scanners (docs/kiosk.md
 * "Several scanners", docs/kiosk-screens.md "Lanes"): one half per lane, each
 * with its name and direction, and its own verdict for its own time. Pure.
 */
import type { GateDirection, KioskState, LanesState } from '../kiosk-bridge-types.js';
import { t } from '../messages/format.js';
import type { DoorVerdict, VerdictView } from './verdict-view-model.js';

export interface LaneHalfView {
  id: string;
  label: string;
  direction: GateDirection;
  /** ENTRY / EXIT, large, so a person knows which lane is which before scanning. */
  directionWord: string;
  /** The lane's mapped scanner is not plugged in (staff see it; the lane still takes window scans if it is the window's). */
  scannerMissing: boolean;
  /** The verdict on this lane now, or null: "Scan your ticket". */
  verdict: VerdictView | null;
}

/** The split screen is up: an enrolled kiosk with two or more lanes, none being mapped. */
export function showsLanes(state: KioskState | null): state is KioskState & { lanes: LanesState } {
  return !!state && state.enrolled && !!state.lanes && state.lanes.lanes.length >= 2 && state.lanes.mapping === null;
}

/** The lane a verdict belongs to: its own, else (the window's scans, the page's own refusals) the window's lane. */
export function laneOfVerdict(verdict: DoorVerdict, lanes: LanesState): string {
  const lane = 'lane' in verdict ? verdict.lane : undefined;
  return lane && lanes.lanes.some((each) => each.id === lane) ? lane : lanes.window_lane;
}

export function laneHalves(lanes: LanesState, shown: ReadonlyMap<string, VerdictView>): LaneHalfView[] {
  return lanes.lanes.map((lane) => ({
    id: lane.id,
    label: lane.label,
    direction: lane.direction,
    directionWord: t(lane.direction === 'exit' ? 'lanes.direction.exit' : 'lanes.direction.entry'),
    scannerMissing: lane.scanner !== null && !lane.connected,
    verdict: shown.get(lane.id) ?? null,
  }));
}
