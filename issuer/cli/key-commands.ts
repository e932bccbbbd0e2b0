/** `key rotate` (docs/protocol.md "Keys"). The rotation itself is issuer/admin/key-rotation.ts. */
import type { Command } from 'commander';
import { withIssuer } from '../admin/issuer-context.js';
import { rotateSigningKey } from '../admin/key-rotation.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('ticket signing keys');
  withCommonOptions(key.command('rotate').description('make a new active signing key; new tickets are signed with it')).action(
    action<CommonOptions>((options, output) =>
      withIssuer(options.data, async ({ dataDir, database }) => {
        const result = await rotateSigningKey(dataDir, database, new Date());
        output.result(
          result,
          () =>
            `New signing key ${result.kid}; retired ${result.retired.join(', ') || 'none'} (still published while its tickets are valid).`,
        );
      }),
    ),
  );
}
