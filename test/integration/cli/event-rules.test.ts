/** `event rules set|show|clear` (docs/issuer.md "Check-in rules"): exact JSON, validation errors that name their path. */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  runCli,
  scratchDir,
  type EventJson,
  type Issuer,
} from '../../support/cli-harness.js';

let issuer: Issuer;
let event: EventJson;

beforeAll(async () => {
  issuer = await initIssuer();
  event = await createEvent(issuer.data);
});

const RULES = {
  version: 1,
  time_zone: 'Europe/Berlin',
  rules: [
    { name: 'VIP entrance', gates: ['VIP'], only_ticket_types: ['VIP'], message: { en: 'VIP entrance only' } },
    { name: 'Doors', except_ticket_types: ['VIP'], window: { from: '18:00', to: '02:00' } },
  ],
};

function rulesFile(content: unknown): string {
  const file = path.join(scratchDir('rules-'), 'rules.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('event rules', () => {
  it('show → none; set → the validated rules; show → the same; clear → none again', async () => {
    const none = await cliJson(['event', 'rules', 'show', '--data', issuer.data, '--event', event.eid]);
    expect(none).toEqual({ eid: event.eid, rules: null, updated_at: null });

    const set = await cliJson<{ eid: string; rules: unknown; updated_at: string }>([
      'event',
      'rules',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--file',
      rulesFile(RULES),
    ]);
    expect(set).toEqual({ eid: event.eid, rules: RULES, updated_at: expect.any(String) });
    expect(await cliJson(['event', 'rules', 'show', '--data', issuer.data, '--event', event.eid])).toEqual(set);

    const human = await runCli(['event', 'rules', 'show', '--data', issuer.data, '--event', event.eid]);
    expect(human.stdout).toContain('0. VIP entrance: only types VIP may enter (gates VIP)');
    expect(human.stdout).toContain('1. Doors: entry 18:00–02:00 (all types but VIP)');

    expect(await cliJson(['event', 'rules', 'clear', '--data', issuer.data, '--event', event.eid])).toEqual({
      eid: event.eid,
      cleared: true,
    });
    expect(await cliJson(['event', 'rules', 'clear', '--data', issuer.data, '--event', event.eid])).toEqual({
      eid: event.eid,
      cleared: false,
    });
  });

  it('refuses an invalid file with RULES_INVALID naming each problem’s path, and keeps the rules it had', async () => {
    await cliJson(['event', 'rules', 'set', '--data', issuer.data, '--event', event.eid, '--file', rulesFile(RULES)]);
    const bad = {
      rules: [
        { name: 'a', only_gates: ['A'] },
        { name: 'b', only_gates: ['B'] },
        { name: 'Doors', window: { from: '25:00', to: '02:00' } },
      ],
    };
    const file = rulesFile(bad);
    const failure = await cliFailure(['event', 'rules', 'set', '--data', issuer.data, '--event', event.eid, '--file', file]);
    expect(failure).toMatchObject({ code: 'RULES_INVALID', exitCode: 1 });
    expect(failure.message).toBe(`${file}: rules[2].window.from: "25:00" is not a time HH:MM`);
    const kept = await cliJson<{ rules: unknown }>(['event', 'rules', 'show', '--data', issuer.data, '--event', event.eid]);
    expect(kept.rules).toEqual(RULES);

    const notJson = await cliFailure(['event', 'rules', 'set', '--data', issuer.data, '--event', event.eid, '--file', rulesFile('{oops')]);
    expect(notJson.code).toBe('RULES_INVALID');
    expect(notJson.message).toContain('not JSON');
    const missing = await cliFailure([
      'event',
      'rules',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--file',
      '/nonexistent/rules.json',
    ]);
    expect(missing).toMatchObject({ code: 'RULES_INVALID', message: '/nonexistent/rules.json: cannot read the rules file (ENOENT)' });
  });

  it('an unknown event is EVENT_NOT_FOUND', async () => {
    const failure = await cliFailure(['event', 'rules', 'set', '--data', issuer.data, '--event', 'nope', '--file', rulesFile(RULES)]);
    expect(failure.code).toBe('EVENT_NOT_FOUND');
  });
});
