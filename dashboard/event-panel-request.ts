/**
 * A panel's own request for the shown event (docs/issuer.md "Admin dashboard"): panels that are not part of the
 * overview ask after each one, one request at a time; an answer for another event (the organiser switched
 * meanwhile) is dropped; a refused admin token signs out; any other problem is the panel's to say, in words.
 */
import type { ActionContext } from './actions.js';
import { ApiProblem, type AdminApi } from './api.js';
import { t } from './messages/format.js';

export class EventPanelRequest<T> {
  private inFlight = false;

  constructor(
    private readonly context: ActionContext,
    private readonly ask: (api: AdminApi, eid: string) => Promise<T>,
    private readonly answered: (answer: T) => void,
    private readonly failed: (problem: string) => void,
  ) {}

  /** Asks again, unless a request is still out. */
  refresh(): void {
    if (this.inFlight) return;
    const eid = this.context.eid();
    this.inFlight = true;
    this.ask(this.context.api(), eid)
      .then((answer) => {
        if (eid === this.context.eid()) this.answered(answer);
      })
      .catch((error: unknown) => {
        if (error instanceof ApiProblem && error.status === 401) return this.context.signedOut(error);
        this.failed(error instanceof ApiProblem ? error.message : t('action.failed'));
      })
      .finally(() => {
        this.inFlight = false;
      });
  }
}
