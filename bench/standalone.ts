/** A bench run on its own (`npm run bench:<name>`): a dev server of its own, and its rows printed as a table. */
import { startDevServer, type DevServer } from '../scripts/devServer';

/** A bench's rows as the markdown table docs/benchmarks.md takes, with the day and the Node version they were measured on. */
export function measuredTable(header: string[], rows: string[][]): string {
  const lines = [header, header.map((_, i) => (i === 0 ? '---' : '---:')), ...rows].map((r) => `| ${r.join(' | ')} |`);
  return `${lines.join('\n')}\n\nMeasured ${new Date().toISOString().slice(0, 10)}, ${process.version}.`;
}

/** Starts a dev server, runs `bench` against it, prints its rows under `header`, stops the server; exits 1 on an error. */
export function runOnItsOwn(header: string[], bench: (server: DevServer) => Promise<string[][]>): void {
  const run = async (): Promise<void> => {
    const server = await startDevServer({ uiPort: false });
    try {
      console.log(`\n${measuredTable(header, await bench(server))}`);
    } finally {
      await server.stop();
    }
  };
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
