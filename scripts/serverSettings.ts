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
 */
export const TEAM_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number>> = {
  'history.maxInFlightUpdates': 128,
};
