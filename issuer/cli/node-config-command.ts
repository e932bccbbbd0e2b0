/**
 * `node-config --to DIR` (docs/protocol.md "The admin CLI"; docs/issuer.md "Serving nodes"): writes the data
 * dir of a serving node. The work is issuer/admin/node-config.ts; this prints what was written, never what is
 * in it (the TLS key stays in its 0600 file).
 */
import type { Command } from 'commander';
import { withIssuer } from '../admin/issuer-context.js';
import { writeNodeConfig } from '../admin/node-config.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';

interface NodeConfigOptions extends CommonOptions {
  to: string;
}

export function registerNodeConfigCommand(program: Command): void {
  withCommonOptions(
    program
      .command('node-config')
      .description("write a serving node's data dir: database location and TLS certificate, never the signing keys")
      .requiredOption('--to <dir>', 'a new or empty directory, or a node dir of this issuer to update'),
  ).action(
    action<NodeConfigOptions>((options, output) =>
      withIssuer(options.data, async (context) => {
        const result = await writeNodeConfig(context, options.to, new Date());
        output.result(result, () =>
          [
            `${result.updated ? 'Updated' : 'Wrote'} the serving node dir ${result.node} for ${result.issuer} (no signing keys):`,
            ...result.files.map((file) => `  ${file}`),
            `Database: ${result.database}`,
            `Start it with: ticket-issuer serve --data ${result.node}`,
          ].join('\n'),
        );
      }),
    ),
  );
}
