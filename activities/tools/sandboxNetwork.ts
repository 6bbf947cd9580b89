/**
 * The network opt-in (AGENT_TEAMS_BASH_NETWORK=on) shares the host's network with bash, so a
 * member reaches whatever the worker reaches: the Temporal frontend above all. What keeps that
 * without authority is the frontend itself requiring credentials the sandbox never sees (mTLS or an
 * API key: the key files are masked, TEMPORAL_API_KEY is not passed). A worker that connects
 * without any says so at start, since then a member can send any Update, signal or cancel, as the
 * Lead or anyone else. docs/security.md compares this with an outbound-only namespace (pasta).
 */
import { connectionOptionsFromEnv } from '../../client/connection';

/** The start-up warning for the network opt-in against a frontend the worker reaches without credentials; null when there is none to give. */
export function networkAuthorityWarning(env: Record<string, string | undefined>): string | null {
  let options: ReturnType<typeof connectionOptionsFromEnv>;
  try {
    options = connectionOptionsFromEnv(env);
  } catch {
    return null; // the worker's own connection fails first, with its own message
  }
  const mtls = typeof options.tls === 'object' && options.tls.clientCertPair !== undefined;
  const header = Object.keys(options.metadata ?? {}).some((name) => name.toLowerCase() === 'authorization');
  if (mtls || options.apiKey !== undefined || header) return null;
  return (
    `AGENT_TEAMS_BASH_NETWORK=on, and this worker reaches the Temporal frontend at ${options.address} without credentials: ` +
    `a member's bash can reach it too and send any Update, signal or cancel, as the Lead or anyone. ` +
    `Require mTLS or an API key on the frontend (the sandbox never sees them), or turn the network off (docs/security.md)`
  );
}
