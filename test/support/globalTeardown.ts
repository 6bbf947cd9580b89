import type { DevServer } from '../../scripts/devServer';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__agentTeamsServer as DevServer | undefined;
  await server?.stop();
}
