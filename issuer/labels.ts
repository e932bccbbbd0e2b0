/** The label rules live in protocol/labels.ts (the kiosk checks its LAN peers' texts by them too). */
export { labelCharacterProblem } from '../protocol/labels.js';
