/**
 * `webhook add|list|test|replay|disable|enable` (docs/issuer.md "Webhooks"): the endpoints other systems hear of the door
 * from. The secret that signs their messages comes from, or goes to, a file (mode 0600), never the command line or
 * the output.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { withIssuer } from '../admin/issuer-context.js';
import { writePrivateFile } from '../admin/private-files.js';
import { parseDateTime } from '../admin/validators.js';
import { AdminError } from '../error-catalogue.js';
import { isoUtc } from '../time.js';
import { sendOne } from '../services/webhook-delivery.js';
import { newMessageId, parseEventTypes, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../services/webhook-events.js';
import { newWebhookSecret, webhookSecretProblem } from '../services/webhook-signature.js';
import { addEndpointWrite, disableEndpointWrite, enableEndpointWrite, replayWrite } from '../services/webhooks.js';
import { endpointHealth, findEndpoint, type EndpointHealth } from '../store/webhooks.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface AddOptions extends CommonOptions {
  events: string;
  secretFile: string;
  event?: string;
}

interface ReplayOptions extends CommonOptions {
  since: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** https://, or http:// to this machine only (a receiver under test): a message names tickets and scanners. */
export function parseWebhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AdminError('INVALID_ARGUMENT', `"${text}" is not a URL (for example https://platform.example.com/hooks/tickets)`);
  }
  if (url.username !== '' || url.password !== '')
    throw new AdminError('INVALID_ARGUMENT', 'the webhook URL must not contain a user name or password');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw new AdminError('INVALID_ARGUMENT', 'the webhook URL must use https:// (http:// only to 127.0.0.1, [::1] or localhost)');
  return url.toString();
}

/** The secret in `file`, or a new one written there (0600) when the file does not exist yet. */
function secretFrom(file: string, say: (line: string) => void): string {
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) {
    if (!fs.statSync(path.dirname(resolved), { throwIfNoEntry: false })?.isDirectory())
      throw new AdminError('INVALID_ARGUMENT', `--secret-file: the folder ${path.dirname(resolved)} does not exist`);
    const secret = newWebhookSecret();
    writePrivateFile(resolved, `${secret}\n`);
    say(`A new signing secret was written to ${resolved} (mode 0600): give it to the receiver, and keep it out of chats and tickets.`);
    return secret;
  }
  const secret = fs.readFileSync(resolved, 'utf8').trim();
  const problem = webhookSecretProblem(secret);
  if (problem !== null) throw new AdminError('INVALID_ARGUMENT', `--secret-file ${resolved}: ${problem}`);
  return secret;
}

function describe(endpoint: EndpointHealth): string {
  const state =
    endpoint.disabled_at !== null
      ? `DISABLED ${endpoint.disabled_at}`
      : endpoint.dead > 0 || endpoint.last_error !== null
        ? 'FAILING'
        : 'ok';
  return [
    `${endpoint.endpoint_id}  ${state}  ${endpoint.url}`,
    `  events: ${endpoint.events === '*' ? 'all' : endpoint.events.split(' ').join(', ')}${endpoint.eid === null ? '' : `; event ${endpoint.eid} only`}`,
    `  delivered ${endpoint.delivered}, waiting ${endpoint.pending}, dead ${endpoint.dead}` +
      (endpoint.last_delivered_at === null ? '' : `; last delivered ${endpoint.last_delivered_at}`) +
      (endpoint.last_error === null ? '' : `; last failure: ${endpoint.last_error}`),
  ].join('\n');
}

export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('tell other systems what happens at the door (signed HTTPS POSTs)');

  withCommonOptions(
    webhook
      .command('add')
      .description('add an endpoint: every matching change from now on is POSTed to it, signed, at least once')
      .argument('<url>', 'where to POST (https://, or http:// to this machine)')
      .requiredOption('--events <list>', `comma-separated: ${WEBHOOK_EVENT_TYPES.join(', ')}; or all`)
      .requiredOption('--secret-file <file>', 'the signing secret (whsec_…); a new one is written there if the file does not exist')
      .option('--event <eid>', "only this event's messages"),
  ).action(
    action<AddOptions>((options, output, [url]) => {
      const target = parseWebhookUrl(url!);
      let events: ReturnType<typeof parseEventTypes>;
      try {
        events = parseEventTypes(options.events);
      } catch (error) {
        throw new AdminError('INVALID_ARGUMENT', `--events: ${(error as Error).message}`);
      }
      const secret = secretFrom(options.secretFile, (line) => output.log(line));
      return withIssuer(options.data, async ({ database }) => {
        const endpoint = await database.write(
          addEndpointWrite({ url: target, events, eid: options.event ?? null, secret, now: isoUtc(new Date()) }),
        );
        output.result(endpoint, () => `Added webhook endpoint ${endpoint.endpoint_id}.\n${describe(endpoint)}`);
      });
    }),
  );

  withCommonOptions(
    webhook.command('list').description('the endpoints and their health: delivered, waiting, dead, the last failure'),
  ).action(
    action<CommonOptions>((options, output) =>
      withIssuer(options.data, async ({ database }) => {
        const endpoints = await endpointHealth(database.read);
        output.result({ endpoints }, () => (endpoints.length === 0 ? 'No webhook endpoints.' : endpoints.map(describe).join('\n')));
      }),
    ),
  );

  withCommonOptions(
    webhook
      .command('test')
      .description('POST a signed webhook.test message to the endpoint now and say what it answered')
      .argument('<id>', 'endpoint id'),
  ).action(
    action<CommonOptions>((options, output, [endpointId]) =>
      withIssuer(options.data, async ({ database }) => {
        const endpoint = await findEndpoint(database.read, endpointId!);
        if (!endpoint)
          throw new AdminError('WEBHOOK_NOT_FOUND', `no webhook endpoint ${endpointId} at this issuer (see "ticket-issuer webhook list")`);
        const now = Date.now();
        const messageId = newMessageId();
        const payload = JSON.stringify({
          type: TEST_EVENT_TYPE,
          timestamp: new Date(now).toISOString(),
          data: { endpoint_id: endpoint.endpoint_id },
        });
        const outcome = await sendOne({ message_id: messageId, payload, url: endpoint.url, secret: endpoint.secret }, now);
        const result = {
          endpoint_id: endpoint.endpoint_id,
          message_id: messageId,
          ok: outcome.ok,
          status: outcome.status,
          error: outcome.error,
        };
        if (!outcome.ok) {
          output.result(result, () => `The test message to ${endpoint.url} failed: ${outcome.error}.`);
          process.exitCode = 1;
          return;
        }
        output.result(result, () => `The endpoint answered ${outcome.status} to a signed test message (${messageId}).`);
      }),
    ),
  );

  withCommonOptions(
    webhook
      .command('replay')
      .description('send again every message since a time that the endpoint takes (same message ids: receivers drop repeats)')
      .argument('<id>', 'endpoint id')
      .requiredOption('--since <iso>', 'from this time on'),
  ).action(
    action<ReplayOptions>((options, output, [endpointId]) => {
      const since = parseDateTime(options.since, '--since');
      return withIssuer(options.data, async ({ database }) => {
        const queued = await database.write(
          replayWrite({ endpointId: endpointId!, since: since.toISOString(), now: new Date().toISOString() }),
        );
        output.result(
          { endpoint_id: endpointId, since: since.toISOString(), queued },
          () => `${queued} message(s) queued again for ${endpointId}; serve sends them.`,
        );
      });
    }),
  );

  withCommonOptions(
    webhook
      .command('disable')
      .description('stop sending to the endpoint (its waiting messages stay; webhook enable sends them)')
      .argument('<id>', 'endpoint id'),
  ).action(
    action<CommonOptions>((options, output, [endpointId]) =>
      withIssuer(options.data, async ({ database }) => {
        const endpoint = await database.write(disableEndpointWrite({ endpointId: endpointId!, now: isoUtc(new Date()) }));
        output.result(endpoint, () => `Disabled ${endpoint.endpoint_id}.\n${describe(endpoint)}`);
      }),
    ),
  );

  withCommonOptions(
    webhook.command('enable').description('send to a disabled endpoint again: what waited goes out first').argument('<id>', 'endpoint id'),
  ).action(
    action<CommonOptions>((options, output, [endpointId]) =>
      withIssuer(options.data, async ({ database }) => {
        const endpoint = await database.write(enableEndpointWrite({ endpointId: endpointId! }));
        output.result(endpoint, () => `Enabled ${endpoint.endpoint_id}.\n${describe(endpoint)}`);
      }),
    ),
  );
}
