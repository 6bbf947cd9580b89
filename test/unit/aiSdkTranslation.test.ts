/**
 * Our provider-neutral requests and responses and the AI SDK's language-model call options and
 * results (specification v4): what each provider package is given, and what the agent loop gets back.
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { toCallOptions } from '../../activities/providers/aiSdkPrompt';
import { toModelResponse } from '../../activities/providers/aiSdkResult';

const usage = (input?: number, output?: number): LanguageModelV4GenerateResult['usage'] => ({
  inputTokens: { total: input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: undefined, reasoning: undefined },
});
const result = (content: LanguageModelV4GenerateResult['content'], finishReason: LanguageModelV4GenerateResult['finishReason'], tokens = usage()) =>
  ({ content, finishReason, usage: tokens, warnings: [] }) as unknown as LanguageModelV4GenerateResult;

describe('toCallOptions', () => {
  test('every role, tool calls with parsed arguments, tool results named by the call they answer', () => {
    const options = toCallOptions({
      model: 'm',
      temperature: 0.2,
      maxTokens: 64,
      tools: [{ name: 'read_file', description: 'Read', parameters: { type: 'object' } }],
      messages: [
        { role: 'system', content: 'policy' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'reading',
          toolCalls: [
            { id: 'c1', name: 'read_file', argumentsJson: '{"path":"a"}' },
            { id: 'c2', name: 'read_file', argumentsJson: '{"path": ' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', content: 'A' },
        { role: 'tool', toolCallId: 'c2', content: 'InvalidToolArguments' },
        { role: 'tool', toolCallId: 'unknown', content: 'orphan' },
      ],
    });
    expect(options).toEqual({
      temperature: 0.2,
      maxOutputTokens: 64,
      tools: [{ type: 'function', name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }],
      prompt: [
        { role: 'system', content: 'policy' },
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'reading' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a' } },
            // Malformed arguments go back as the model sent them.
            { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: '{"path": ' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'A' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'read_file', output: { type: 'text', value: 'InvalidToolArguments' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'unknown', toolName: '', output: { type: 'text', value: 'orphan' } }] },
      ],
    });
  });

  test('no tools, no temperature, no limit: none sent (providers refuse an empty tool list); an assistant without text sends no text part', () => {
    const options = toCallOptions({ model: 'm', tools: [], messages: [{ role: 'assistant', content: null }] });
    expect(options).toEqual({ prompt: [{ role: 'assistant', content: [] }] });
  });

  test('a tool-call id that looks like an inherited property name is only an id', () => {
    const options = toCallOptions({
      model: 'm',
      tools: [],
      messages: [
        { role: 'assistant', content: null, toolCalls: [{ id: '__proto__', name: 'x', argumentsJson: '{}' }] },
        { role: 'tool', toolCallId: 'constructor', content: 'r' },
      ],
    });
    expect(options.prompt[1]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'constructor', toolName: '', output: { type: 'text', value: 'r' } }],
    });
  });
});

describe('toModelResponse', () => {
  test('text parts joined, tool calls in order, the raw finish reason, usage totals', () => {
    const response = toModelResponse(
      result(
        [
          { type: 'text', text: 'a' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 't', input: '{}' },
          { type: 'text', text: 'b' },
        ],
        { unified: 'tool-calls', raw: 'tool_use' },
        usage(10, 3),
      ),
    );
    expect(response).toEqual({
      message: { content: 'ab', toolCalls: [{ id: 'c1', name: 't', argumentsJson: '{}' }] },
      finishReason: 'tool_use',
      usage: { promptTokens: 10, completionTokens: 3 },
    });
  });

  test('no text: null content; no raw finish reason: the unified one in chat-completions words; no usage reported: none', () => {
    expect(toModelResponse(result([], { unified: 'tool-calls', raw: undefined }))).toEqual({
      message: { content: null, toolCalls: [] },
      finishReason: 'tool_calls',
    });
    expect(toModelResponse(result([], { unified: 'other', raw: undefined })).finishReason).toBe('unknown');
  });

  test("a provider-executed tool call (the provider's own web search, say) is never handed to the loop; a call without an id gets one", () => {
    const response = toModelResponse(
      result(
        [
          { type: 'tool-call', toolCallId: 'srv', toolName: 'web_search', input: '{}', providerExecuted: true },
          { type: 'tool-call', toolCallId: '', toolName: 'mine', input: '{"a":1}' },
        ],
        { unified: 'tool-calls', raw: undefined },
      ),
    );
    expect(response.message.toolCalls).toEqual([{ id: 'call_0', name: 'mine', argumentsJson: '{"a":1}' }]);
  });
});
