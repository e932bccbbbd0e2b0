/**
 * Mounting the screen view/screen-choice.ts picked into `#screen`: the screen module (screens/) it is, with what its
 * buttons do. The handle it returns is what the controller (app.ts) updates on every state; a screen is mounted
 * again only when another one is picked, or in another language (docs/kiosk.md "Languages").
 */
import type { OnsiteIssuerApi } from './onsite-issuer-bridge-types.js';
import { mountIdCheck, type IdCheckActions, type IdCheckProps } from './screens/id-check.js';
import { mountLanes } from './screens/lanes.js';
import { mountLookup, type LookupActions, type LookupProps } from './screens/lookup.js';
import { mountParty, type PartyActions, type PartyProps } from './screens/party.js';
import { mountReady, type ReadyActions, type ReadyProps } from './screens/ready.js';
import type { ScreenHandle } from './screens/screen.js';
import { mountSetup, type SetupActions, type SetupProps } from './screens/setup.js';
import type { StaffGate } from './screens/staff.js';
import { mountVerdict, type VerdictActions } from './screens/verdict.js';
import type { LaneHalfView } from './view/lanes-view-model.js';
import type { ShownScreen } from './view/screen-choice.js';
import type { VerdictView } from './view/verdict-view-model.js';

export type Mounted =
  | { screen: 'starting' }
  | { screen: 'setup'; handle: ScreenHandle<SetupProps> }
  | { screen: 'ready'; handle: ScreenHandle<ReadyProps> }
  | { screen: 'verdict'; handle: ScreenHandle<VerdictView> }
  | { screen: 'lookup'; handle: ScreenHandle<LookupProps> }
  | { screen: 'lanes'; handle: ScreenHandle<LaneHalfView[]> }
  | { screen: 'id_check'; handle: ScreenHandle<IdCheckProps> }
  | { screen: 'party'; handle: ScreenHandle<PartyProps> };

/** What each screen's buttons do. */
export interface ScreenActions {
  setup: SetupActions;
  ready: ReadyActions;
  verdict: VerdictActions;
  idCheck: IdCheckActions;
  party: PartyActions;
  lookup: LookupActions;
}

/**
 * Empties `root` and mounts `screen` in it. `onsiteIssuer` and `staff` go to Setup: its issuer panel (Electron only)
 * and the staff settings (screens/setup.ts).
 */
export function mountScreen(
  root: HTMLElement,
  screen: ShownScreen,
  actions: ScreenActions,
  onsiteIssuer: OnsiteIssuerApi | undefined,
  staff: StaffGate | undefined,
): Mounted {
  root.replaceChildren();
  root.dataset['screen'] = screen;
  delete root.dataset['setupMode'];
  switch (screen) {
    case 'starting':
      return { screen };
    case 'setup':
      return { screen, handle: mountSetup(root, actions.setup, onsiteIssuer, staff) };
    case 'ready':
      return { screen, handle: mountReady(root, actions.ready) };
    case 'verdict':
      return { screen, handle: mountVerdict(root, actions.verdict) };
    case 'lanes':
      return { screen, handle: mountLanes(root) };
    case 'id_check':
      return { screen, handle: mountIdCheck(root, actions.idCheck) };
    case 'party':
      return { screen, handle: mountParty(root, actions.party) };
    case 'lookup':
      return { screen, handle: mountLookup(root, actions.lookup) };
  }
}
