/** An AI SDK generate result (specification v4) as the provider-neutral ModelResponse the agent loop reads. */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { ModelResponse, ModelUsage, ToolCall } from '../../shared/contract/model';

/** The finish reason in the chat-completions words the loop and the views use, when the provider sent no raw one. */
const UNIFIED_FINISH: Readonly<Record<LanguageModelV4GenerateResult['finishReason']['unified'], string>> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  'tool-calls': 'tool_calls',
  error: 'error',
  interrupted: 'interrupted',
  other: 'unknown',
};

export function toModelResponse(result: LanguageModelV4GenerateResult): ModelResponse {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of result.content) {
    if (part.type === 'text') texts.push(part.text);
    // A provider-executed tool (web search, say) is the provider's own business: never dispatched here.
    else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      toolCalls.push({ id: part.toolCallId || `call_${toolCalls.length}`, name: part.toolName, argumentsJson: part.input });
    }
  }
  const response: ModelResponse = {
    message: { content: texts.length > 0 ? texts.join('') : null, toolCalls },
    finishReason: result.finishReason.raw ?? UNIFIED_FINISH[result.finishReason.unified],
  };
  const usage = toModelUsage(result.usage);
  if (usage) response.usage = usage;
  return response;
}

/** The AI SDK's normalised usage, the kinds a provider did not report left out (undefined: it reported none). */
function toModelUsage({ inputTokens, outputTokens, raw }: LanguageModelV4GenerateResult['usage']): ModelUsage | undefined {
  if (inputTokens.total === undefined && outputTokens.total === undefined) return undefined;
  const usage: ModelUsage = { promptTokens: tokens(inputTokens.total), completionTokens: tokens(outputTokens.total) };
  // DeepSeek reports its automatic cache hits as prompt_cache_hit_tokens, which the chat-completions provider does not read.
  const deepSeekHits = raw?.prompt_cache_hit_tokens;
  if (!inputTokens.cacheRead && typeof deepSeekHits === 'number') usage.cacheReadTokens = tokens(deepSeekHits);
  else if (inputTokens.cacheRead !== undefined) usage.cacheReadTokens = tokens(inputTokens.cacheRead);
  if (inputTokens.cacheWrite !== undefined) usage.cacheWriteTokens = tokens(inputTokens.cacheWrite);
  if (outputTokens.reasoning !== undefined) usage.reasoningTokens = tokens(outputTokens.reasoning);
  return usage;
}

/** A count as the contract takes it: a whole, non-negative, safe integer (a server's odd figure becomes 0). */
function tokens(value: number | undefined): number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
