/**
 * Server settings a Team needs, shipped in every configuration: the dev server (scripts/devServer.ts
 * passes them as --dynamic-config-value), and the compose deployment's dynamic config
 * (deploy/dynamicconfig/development-sql.yaml, checked against this by test/unit/serverSettings.test.ts).
 *
 * history.maxInFlightUpdates: the server admits at most this many Updates in flight per workflow
 * and answers the rest with ResourceExhausted, which the SDK retries with backoff. The Lead serves
 * every caller of a Team (teammates' tool calls, waits, the operator, panels), and a burst of
 * claims on one task is exactly the case a task board exists for: with the default of 10, 64 raw
 * callers racing one claim take seconds to settle while the losers back off; with room for them
 * all, each is validated and answered in turn. Measured by `npm run bench:racing` (docs/benchmarks.md).
 *
 * history.maxInFlightUpdatePayloads: the total size of the requests of the Updates in flight per
 * workflow (default 20 MiB). The SDK echoes each request it accepts or rejects back in its workflow
 * task completion, and the frontend refuses a completion over 4 MiB; since server 1.30 that
 * terminates the workflow (reason GrpcMessageTooLarge); before that, the workflow task fails.
 * Seen on server 1.32.2: a handful of concurrent 1.9 MB hostile Updates, each one rejected by its
 * validator, terminated a Lead. The Lead counts what it accepts and produces (COMPLETION_MAX_BYTES,
 * 1.5 MB, shared/lead/completionSize.ts), but not the requests it rejects nor the one buffered query's
 * answer (about 1.05 MB at most) that the server may attach to a task. At 1 MiB the worst completion
 * is 1,048,576 (every echoed request) + 1,050,000 (a query) + 1,500,000 (the completion limit) = 3,598,576
 * bytes, 86% of 4 MiB; at 2 MiB it was over. The Team's own requests stay far under 1 MiB (a message
 * is at most 256 KiB: shared/contract/limits.ts). A request that does not fit now gets ResourceExhausted, and
 * one that alone is 1 MiB or more can never be admitted (TeamClient throws TeamCallFailed).
 *
 * Whatever the setting, on refusing an Update for either limit the server also drops the workflow's
 * in-memory state (1.29.1: workflow/cache/cache.go clears the context on any error of the Update's
 * action), which aborts the Updates in flight (retried by the SDK) and a speculative workflow task.
 * A caller that keeps sending requests that do not fit therefore stalls the Team while it does so,
 * without failing a task (test/integration/completionSize.test.ts); only namespace access admits
 * such a caller (docs/security.md).
 */
export const TEAM_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number>> = {
  'history.maxInFlightUpdates': 128,
  'history.maxInFlightUpdatePayloads': 1024 * 1024,
};

/** A server dynamic-config file: the Team's settings above plus `extra` (tests' and tools' own). */
export function dynamicConfigYaml(extra: Readonly<Record<string, unknown>> = {}): string {
  const entries: Record<string, unknown> = { ...TEAM_SERVER_DYNAMIC_CONFIG, ...extra };
  return Object.entries(entries)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n    constraints: {}\n`)
    .join('');
}

/**
 * The end of a server config file this project writes: one active cluster whose frontend answers
 * at `rpcAddress`, and the dynamic config read from `dynamicConfigFile`.
 */
export function singleClusterYaml(rpcAddress: string, dynamicConfigFile: string): string {
  return `clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "${rpcAddress}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${dynamicConfigFile}
  pollInterval: 10s
`;
}
