/** Entry point of the kiosk screens: wait for the host's KioskApi, then start the screens. */
import './styles.css';
import './languages.css';
import { waitForKiosk } from './kiosk-bridge.js';
import { KioskScreens } from './app.js';
import { t } from './messages/format.js';

const root = document.getElementById('screen');
if (!root) throw new Error('index.html has no #screen element');
document.title = t('app.title');
root.textContent = t('app.starting');

const kiosk = await waitForKiosk(window);
if (kiosk) await new KioskScreens(root, kiosk, window, window.onsiteIssuer).start();
else root.textContent = t('app.no_kiosk');
