/** An AI SDK generate result (specification v4) as the provider-neutral ModelResponse the agent loop reads. */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { ModelResponse, ToolCall } from '../../shared/contract/model';

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
  const { inputTokens, outputTokens } = result.usage;
  if (inputTokens.total !== undefined || outputTokens.total !== undefined) {
    response.usage = { promptTokens: inputTokens.total ?? 0, completionTokens: outputTokens.total ?? 0 };
  }
  return response;
}
