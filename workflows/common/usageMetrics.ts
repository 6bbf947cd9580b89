/**
 * Prometheus counters of what model calls used, from workflow code: the SDK's workflow metric
 * meter drops what a replay emits, so each recorded call is counted once, by the worker that ran
 * the workflow task that recorded it (a worker that replays it after a crash counts nothing).
 * Labels: role, provider, model and, for tokens, the kind; no Team id (one series per Team would
 * grow without bound). Exposed by a worker with AGENT_TEAMS_METRICS_BIND (docs/operations.md).
 */
import { metricMeter } from '@temporalio/workflow';
import { callUsage } from '../../shared/agent/usage';
import type { ModelUsage } from '../../shared/contract/model';
import { parseModelName } from '../../shared/contract/modelNames';
import { TOKEN_KINDS } from '../../shared/contract/usage';

export const MODEL_CALLS_METRIC = 'agent_teams_model_calls';
export const MODEL_TOKENS_METRIC = 'agent_teams_model_tokens';

/** `cacheReadTokens` as `cache_read`: label values in Prometheus's own style. */
const KIND_LABEL: Readonly<Record<(typeof TOKEN_KINDS)[number], string>> = {
  inputTokens: 'input',
  cacheReadTokens: 'cache_read',
  cacheWriteTokens: 'cache_write',
  outputTokens: 'output',
  reasoningTokens: 'reasoning',
};

export function countModelCall(role: string, model: string | null, usage: ModelUsage | undefined): void {
  const name = model === null ? null : parseModelName(model);
  const tags = { role, provider: name?.provider ?? 'default', model: name?.model ?? model ?? 'default' };
  metricMeter.createCounter(MODEL_CALLS_METRIC, 'calls', 'Model calls whose answer a workflow recorded').add(1, tags);
  const tokens = metricMeter.createCounter(MODEL_TOKENS_METRIC, 'tokens', 'Tokens of recorded model calls, by kind');
  const totals = callUsage(usage);
  for (const kind of TOKEN_KINDS) if (totals[kind] > 0) tokens.add(totals[kind], { ...tags, kind: KIND_LABEL[kind] });
}
