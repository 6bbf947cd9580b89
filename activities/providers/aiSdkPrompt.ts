/**
 * A provider-neutral ModelRequest as the AI SDK's language-model call options (specification v4),
 * which each provider package turns into its own API's body.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4Message } from '@ai-sdk/provider';
import type { ChatMessage, ModelRequest, ToolSpec } from '../../shared/contract/model';

/** A tool call's arguments as the prompt carries them: parsed when they are JSON, else the raw text (the model sent it so; the tool result said so). */
function toolInput(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson) as unknown;
  } catch {
    return argumentsJson;
  }
}

function toMessage(message: ChatMessage, toolNames: ReadonlyMap<string, string>): LanguageModelV4Message {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: toolInput(call.argumentsJson),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId,
            // Anthropic and Google name the tool a result answers; the call that asked for it says which.
            toolName: toolNames.get(message.toolCallId) ?? '',
            output: { type: 'text', value: message.content },
          },
        ],
      };
  }
}

function toTool(tool: ToolSpec): LanguageModelV4FunctionTool {
  return { type: 'function', name: tool.name, description: tool.description, inputSchema: tool.parameters };
}

/** Anthropic's prompt-cache mark, as the AI SDK's Anthropic provider reads it from a message's provider options. */
const CACHE_BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/**
 * The prompt with its cache breakpoints: the system message (so the tools and the policy before it
 * are cached once per member) and the last message (so the next call, which repeats this whole
 * prompt and adds one step, reads it from the cache: Anthropic looks back up to 20 blocks from a
 * breakpoint for an earlier one). Two of the four breakpoints a request may carry.
 */
function withBreakpoints(prompt: LanguageModelV4Message[]): LanguageModelV4Message[] {
  const systemIndex = prompt.findIndex((m) => m.role === 'system');
  return prompt.map((message, index) => (index === systemIndex || index === prompt.length - 1 ? { ...message, providerOptions: CACHE_BREAKPOINT } : message));
}

/** The call options for one request, without the abort signal (the provider adds it). */
export function toCallOptions(request: ModelRequest, options: { cacheBreakpoints?: boolean } = {}): LanguageModelV4CallOptions {
  const toolNames = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
  }
  const prompt = request.messages.map((message) => toMessage(message, toolNames));
  return {
    prompt: options.cacheBreakpoints ? withBreakpoints(prompt) : prompt,
    // Providers reject an empty tool list, so a request without tools sends none.
    ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
  };
}
