/**
 * The model-provider contract: provider-neutral chat messages, tool specs, requests and responses,
 * and the error classification model calls fail with.
 *
 * Pure types and zod schemas only: shared/ is bundled into Temporal workflow code, so nothing here
 * may touch Node built-ins, the network, timers or the environment. Providers (which do) live in
 * activities/providers/ and run inside activities.
 */
import { z } from 'zod';

/**
 * A tool call as the model sent it. `argumentsJson` is the raw JSON text, deliberately unparsed:
 * the runtime parses it later so malformed JSON can be reported back to the model as a tool result
 * instead of failing the call.
 */
export interface ToolCall {
  id: string;
  name: string;
  argumentsJson: string;
}

export interface SystemMessage {
  role: 'system';
  content: string;
}

export interface UserMessage {
  role: 'user';
  content: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  toolCalls?: ToolCall[];
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface ToolSpec {
  name: string;
  description: string;
  /** A JSON schema for the tool's arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
}

/**
 * A call's usage as the provider reported it. `promptTokens` counts every input token, cache reads
 * and writes among them; `completionTokens` every output token, reasoning among them.
 */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

export interface ModelResponse {
  message: { content: string | null; toolCalls: ToolCall[] };
  /** As the provider reported it: 'stop', 'tool_calls', 'length', ... ('unknown' when absent). */
  finishReason: string;
  usage?: ModelUsage;
}

export interface ModelCallOptions {
  /** Cancellation: when it aborts, the call stops promptly with an AbortError and is not retried. */
  signal?: AbortSignal;
}

export interface ModelProvider {
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}

// ---------------------------------------------------------------------------------------------
// Schemas (runtime validation of the same shapes, e.g. for scripted responses or activity input).
// ---------------------------------------------------------------------------------------------

export const toolCallSchema: z.ZodType<ToolCall> = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  argumentsJson: z.string(),
});

export const chatMessageSchema: z.ZodType<ChatMessage> = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), toolCalls: z.array(toolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), toolCallId: z.string().min(1), content: z.string() }),
]);

export const toolSpecSchema: z.ZodType<ToolSpec> = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});

export const modelRequestSchema: z.ZodType<ModelRequest> = z.object({
  model: z.string(),
  messages: z.array(chatMessageSchema),
  tools: z.array(toolSpecSchema),
  temperature: z.number().min(0).optional(),
  maxTokens: z.number().int().positive().optional(),
});

const tokens = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const modelUsageSchema: z.ZodType<ModelUsage> = z.object({
  promptTokens: tokens,
  completionTokens: tokens,
  cacheReadTokens: tokens.optional(),
  cacheWriteTokens: tokens.optional(),
  reasoningTokens: tokens.optional(),
});

export const modelResponseSchema: z.ZodType<ModelResponse> = z.object({
  message: z.object({ content: z.string().nullable(), toolCalls: z.array(toolCallSchema) }),
  finishReason: z.string(),
  usage: modelUsageSchema.optional(),
});

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

export const MODEL_ERROR_KINDS = ['rate_limited', 'server_error', 'timeout', 'bad_request', 'auth', 'malformed_response'] as const;
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];
export const modelErrorKindSchema = z.enum(MODEL_ERROR_KINDS);

export interface ModelCallErrorInit {
  kind: ModelErrorKind;
  retryable: boolean;
  /** How long the provider asked us to wait before trying again (rate limits). */
  retryAfterMs?: number;
  /** HTTP status, when the failure came from an HTTP response. */
  status?: number;
  cause?: unknown;
}

/**
 * A classified model-call failure. Deliberately plain (no Temporal imports): the activity layer
 * maps it to an ApplicationFailure (type = kind, nonRetryable = !retryable, nextRetryDelay =
 * retryAfterMs). The message says what went wrong and what to do next.
 */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  readonly kind: ModelErrorKind;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly status?: number;

  constructor(message: string, init: ModelCallErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.retryable = init.retryable;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.status !== undefined) this.status = init.status;
  }
}

export function isModelCallError(error: unknown): error is ModelCallError {
  return error instanceof ModelCallError;
}
