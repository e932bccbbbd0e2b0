#!/usr/bin/env node
// `npm test`: every check CI runs, in order, stopping at the first that fails: the type check, the lint, the
// format check, the build, the unit, integration and property tests (vitest), then the browser end-to-end
// tests (@playwright/test). The build runs once, here: both runners are told so (test/global-setup.ts) and
// do not build again. Each step's wall time, and the whole suite's, is printed at the end.
import { spawnSync } from 'node:child_process';

/** Tells test/global-setup.ts that the build is done (its TESTS_BUILT_ENV). */
const TESTS_BUILT_ENV = 'TICKET_TESTS_BUILT';

const STEPS = [
  { name: 'type check', npm: ['run', 'typecheck'] },
  { name: 'lint', npm: ['run', 'lint'] },
  { name: 'format check', npm: ['run', 'format:check'] },
  { name: 'build', npm: ['run', 'build'] },
  { name: 'vitest', npm: ['exec', '--', 'vitest', 'run'] },
  { name: 'playwright', npm: ['run', 'test:e2e'] },
];

/** "11 min 32 s", "42 s". */
function duration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

// Under npm, npm_execpath is npm's own script: run it with this Node. Otherwise npm from PATH.
const npmScript = process.env.npm_execpath;
const npm = (args) => (npmScript?.endsWith('.js') ? [process.execPath, [npmScript, ...args]] : ['npm', args]);

const suiteStart = Date.now();
const env = { ...process.env };
const times = [];
let failed = null;
for (const step of STEPS) {
  const start = Date.now();
  const [command, args] = npm(step.npm);
  const result = spawnSync(command, args, { stdio: 'inherit', env, shell: process.platform === 'win32' && command === 'npm' });
  times.push(`${step.name} ${duration(Date.now() - start)}`);
  if (result.status !== 0) {
    failed = step.name;
    break;
  }
  if (step.name === 'build') env[TESTS_BUILT_ENV] = '1';
}
const total = duration(Date.now() - suiteStart);
console.log(`\n${times.join(' · ')}`);
console.log(failed === null ? `test suite: ${total}` : `test suite: ${failed} failed, after ${total}`);
process.exit(failed === null ? 0 : 1);
