/** `panel`: checks where the live web panel may listen, then serves it (cli/panel/server.ts) until Ctrl-C. */
import { Client } from '@temporalio/client';
import { InvalidArgumentError, type Command } from 'commander';
import { redactAddress } from '../../shared/text/redact';
import { errorMessage } from '../../shared/util/errors';
import { connect, failure, type GlobalOptions } from '../common';
import { webUiLink } from '../format';
import { PANEL_BIND_ADDRESS_INVALID, PANEL_TOKEN_REQUIRED, allowedHostName, isBindAddress, isLoopback, startPanel } from '../panel/server';

export function registerPanelCommand(program: Command): void {
  program
    .command('panel')
    .description("serve the live web panel: each Team's roster, board and Lead, updated as they change (Server-Sent Events, no polling)")
    .option('--port <port>', 'port to listen on (default 8299; 0 picks a free one)', (value: string) => parsePort(value), 8299)
    .option('--host <host>', 'address to bind: an IP address or localhost (default 127.0.0.1; a non-loopback one needs --token)', '127.0.0.1')
    .option('--token <secret>', 'required to bind a non-loopback address: every request must carry it (default: $PANEL_TOKEN)')
    .option(
      '--allowed-host <name>',
      'also answer requests whose Host is this name (repeatable; loopback names and the bound address are always answered)',
      (value: string, previous: string[]) => [...previous, parseAllowedHost(value)],
      [] as string[],
    )
    .action(async (opts: { port: number; host: string; token?: string; allowedHost: string[] }) => {
      const options = program.opts<GlobalOptions>();
      const token = opts.token ?? process.env.PANEL_TOKEN;
      // Checked before connecting, and before the token: a name is refused whatever it resolves to.
      if (!isBindAddress(opts.host)) {
        throw failure(
          PANEL_BIND_ADDRESS_INVALID,
          `--host ${opts.host} is not an IP address or localhost: bind an address (e.g. 127.0.0.1, 0.0.0.0, ::1); ` +
            'to open the panel by a name, also pass --allowed-host <name>',
        );
      }
      if (!isLoopback(opts.host) && !token) {
        throw failure(
          PANEL_TOKEN_REQUIRED,
          `--host ${opts.host} is not loopback: pass --token <secret> (or set PANEL_TOKEN), then share the URL the panel prints`,
        );
      }
      const { connection, address, namespace } = await connect(options, 5_000);
      const client = new Client({ connection, namespace });
      const panel = await startPanel({
        client,
        host: opts.host,
        port: opts.port,
        ...(token ? { token } : {}),
        allowedHosts: opts.allowedHost,
        webUiLink: (teamId) => webUiLink(address, namespace, teamId),
      });
      // panel.url carries the panel's own ?token= on purpose: it is the URL to share (docs/cli.md).
      console.log(`panel: ${panel.url} (Teams in namespace ${namespace} at ${redactAddress(address)}; Ctrl-C to stop)`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await panel.close();
      await connection.close();
    });
}

function parseAllowedHost(value: string): string {
  try {
    return allowedHostName(value);
  } catch (error) {
    throw new InvalidArgumentError(errorMessage(error));
  }
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError(`"${value}" is not a port (0-65535)`);
  return port;
}
