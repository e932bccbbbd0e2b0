/** The issuer's thread: main/onsite-issuer as the kiosk app runs it, started and stopped on command. */
import { issuerFileLogger, OnsiteIssuer } from '../../main/onsite-issuer/onsite-issuer.js';
import { busyMeter } from './measure.js';
import { ENROLL_RPM } from './settings.js';
import { serveCommands } from './worker-rpc.js';

export interface IssuerRole {
  role: 'issuer';
  dataDir: string;
  logFile: string;
  scannerRpm: number | undefined;
}

export function issuerWorker(role: IssuerRole): void {
  const issuer = new OnsiteIssuer({
    dataDir: role.dataDir,
    logger: issuerFileLogger(role.logFile),
    enrollRpm: ENROLL_RPM,
    ...(role.scannerRpm === undefined ? {} : { scannerRpm: role.scannerRpm }),
  });
  const busySince = busyMeter();
  serveCommands({
    start: async () => {
      const status = await issuer.start();
      return { fingerprint: status.fingerprint, urls: status.urls };
    },
    stop: async () => {
      await issuer.stop();
      return null;
    },
    // Share of the time this thread was busy since the previous call.
    busy: async () => busySince(),
  });
}
