/**
 * The deterministic SCRIPTED MODEL: a ModelProvider that stands in for a real model in tests and
 * the demo, so no model key or network is ever needed. It is a pure function of the request (plus
 * sleeping): no clock, randomness, environment or state between calls.
 *
 * The current turn is the last run of consecutive `user` messages in the request (a message a
 * running turn took at a step boundary, Steer, starts such a run: its script takes over). Each of them
 * that is a rendered inbox message (see shared/agent/transcript.ts) whose content is an object with
 * an own `script` array (or text that is such an object's JSON) contributes its steps, messages in order:
 *
 *   { "think": 5000 }                                   "work" for 5 s (cancellable)
 *   { "send": { "to": "lead", "content": … } }          call tool send_message with {to, content}
 *   { "tool": { "name": "task_claim", "args": {…} } }   call that tool with those args
 *   { "answer": "done" }                                final text reply; ends the script
 *
 * A step object with several of these keys is taken in the order think, send, tool, answer;
 * anything unrecognised is ignored. Other user messages (runtime notes) contribute nothing but do
 * not end the run.
 *
 * The steps are cut into chunks: thinks followed by a maximal run of tool calls; or thinks followed
 * by the answer; or trailing thinks. Model call k of the turn (k = assistant messages after the
 * turn's user messages) performs chunk k: it sleeps the chunk's thinks, then returns all of the
 * chunk's tool calls in one response (ids `call-<k>-<i>`). Past the tool-call chunks it replies
 * with the answer if the script has one, else `{"handled":[<message ids of the turn>]}`.
 */
import type { ChatMessage, ModelCallOptions, ModelProvider, ModelRequest, ModelResponse, ToolCall } from '../../shared/contract/model';
import { parseRenderedInboxMessage } from '../../shared/agent/transcript';

export type ScriptedSleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface ScriptedModelOptions {
  /** How thinking waits (default: a timer that stops early when the signal aborts). */
  sleep?: ScriptedSleep;
}

/** Thinking is slept in slices of at most this many ms, checking for cancellation in between. */
export const SCRIPTED_THINK_SLICE_MS = 200;

/** The tool a `send` step calls. */
export const SEND_MESSAGE_TOOL = 'send_message';

export type ScriptedModelStep = { kind: 'think'; ms: number } | { kind: 'call'; name: string; args: unknown } | { kind: 'answer'; text: string };

export interface ScriptedModelChunk {
  thinkMs: number[];
  calls: Array<{ name: string; args: unknown }>;
  answer?: string;
}

export interface ScriptedTurn {
  /** Ids of the turn's rendered inbox messages, in order. */
  messageIds: string[];
  steps: ScriptedModelStep[];
  /** How many assistant messages follow the turn's user messages (= index of this call's chunk). */
  callIndex: number;
}

function abortError(signal?: AbortSignal): Error {
  const error = new Error('scripted model call cancelled', signal?.reason === undefined ? undefined : { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** A timer that resolves after ms, or rejects with an AbortError as soon as the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An own property only (content is decoded JSON: never consult the prototype chain). */
function own(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.getOwnPropertyDescriptor(value, key)?.value as unknown;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The normalised steps of one raw script step (unrecognised parts are ignored). */
function stepsOf(raw: unknown): ScriptedModelStep[] {
  const steps: ScriptedModelStep[] = [];
  const think = own(raw, 'think');
  if (typeof think === 'number' && Number.isFinite(think) && think > 0) steps.push({ kind: 'think', ms: think });
  const send = own(raw, 'send');
  const to = own(send, 'to');
  if (typeof to === 'string') {
    const content = own(send, 'content');
    steps.push({ kind: 'call', name: SEND_MESSAGE_TOOL, args: { to, content: content === undefined ? null : content } });
  }
  const tool = own(raw, 'tool');
  const name = own(tool, 'name');
  if (typeof name === 'string' && name.length > 0) {
    const args = own(tool, 'args');
    steps.push({ kind: 'call', name, args: isObject(args) ? args : {} });
  }
  const answer = own(raw, 'answer');
  if (typeof answer === 'string') steps.push({ kind: 'answer', text: answer });
  return steps;
}

/** The script steps a message's content carries (none unless it is an object with an own `script` array). */
export function scriptStepsOf(content: unknown): ScriptedModelStep[] {
  const script = own(content, 'script');
  return Array.isArray(script) ? script.flatMap(stepsOf) : [];
}

/**
 * A text content that is JSON counts as that JSON: an operator's prompt and a CLI message are text,
 * and a body is a JSON string since message bodies are rendered as JSON (before, the text itself,
 * which parsed as the JSON it held).
 */
function decodedText(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** The current turn of a transcript: its messages' ids and steps, and which model call this is. */
export function currentScriptedTurn(messages: readonly ChatMessage[]): ScriptedTurn {
  let end = messages.length - 1;
  while (end >= 0 && messages[end]!.role !== 'user') end--;
  let start = end;
  while (start > 0 && messages[start - 1]!.role === 'user') start--;
  const messageIds: string[] = [];
  const steps: ScriptedModelStep[] = [];
  if (end >= 0) {
    for (const message of messages.slice(start, end + 1)) {
      if (message.role !== 'user') continue;
      const parsed = parseRenderedInboxMessage(message.content);
      if (!parsed) continue;
      messageIds.push(parsed.messageId);
      steps.push(...scriptStepsOf(decodedText(parsed.content)));
    }
  }
  const callIndex = messages.slice(end + 1).filter((m) => m.role === 'assistant').length;
  return { messageIds, steps, callIndex };
}

/** Cuts steps into chunks (see the header); the script ends at its first answer. */
export function chunkScript(steps: readonly ScriptedModelStep[]): ScriptedModelChunk[] {
  const chunks: ScriptedModelChunk[] = [];
  let current: ScriptedModelChunk = { thinkMs: [], calls: [] };
  for (const step of steps) {
    if (step.kind === 'think') {
      if (current.calls.length > 0) {
        chunks.push(current);
        current = { thinkMs: [], calls: [] };
      }
      current.thinkMs.push(step.ms);
    } else if (step.kind === 'call') {
      current.calls.push({ name: step.name, args: step.args });
    } else {
      if (current.calls.length > 0) {
        chunks.push(current);
        current = { thinkMs: [], calls: [] };
      }
      current.answer = step.text;
      chunks.push(current);
      return chunks;
    }
  }
  if (current.calls.length > 0 || current.thinkMs.length > 0) chunks.push(current);
  return chunks;
}

async function think(ms: number, sleep: ScriptedSleep, signal: AbortSignal | undefined): Promise<void> {
  let remaining = ms;
  while (remaining > 0) {
    if (signal?.aborted) throw abortError(signal);
    const slice = Math.min(SCRIPTED_THINK_SLICE_MS, remaining);
    await sleep(slice, signal);
    remaining -= slice;
  }
  if (signal?.aborted) throw abortError(signal);
}

/** A token per four characters: the scripted model's usage is an estimate, but a pure function of the request like the rest of it. */
export const SCRIPTED_CHARS_PER_TOKEN = 4;

function estimatedTokens(values: readonly unknown[]): number {
  const chars = values.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value : JSON.stringify(value ?? '')).length, 0);
  return Math.ceil(chars / SCRIPTED_CHARS_PER_TOKEN);
}

/** The response with the usage a real provider would report: its prompt's and its own estimated tokens. */
function withUsage(request: ModelRequest, response: ModelResponse): ModelResponse {
  const promptTokens = estimatedTokens([...request.messages.map((m) => m.content), ...request.tools]);
  const completionTokens = estimatedTokens([response.message.content, ...response.message.toolCalls.map((c) => `${c.name}${c.argumentsJson}`)]);
  return { ...response, usage: { promptTokens, completionTokens } };
}

function finalReply(text: string): ModelResponse {
  return { message: { content: text, toolCalls: [] }, finishReason: 'stop' };
}

export function createScriptedModel(options: ScriptedModelOptions = {}): ModelProvider {
  const sleep = options.sleep ?? abortableSleep;
  return {
    async complete(request: ModelRequest, callOptions?: ModelCallOptions): Promise<ModelResponse> {
      return withUsage(request, await scriptedResponse(request, sleep, callOptions?.signal));
    },
  };
}

async function scriptedResponse(request: ModelRequest, sleep: ScriptedSleep, signal: AbortSignal | undefined): Promise<ModelResponse> {
  if (signal?.aborted) throw abortError(signal);
  const turn = currentScriptedTurn(request.messages);
  const chunks = chunkScript(turn.steps);
  const finalAnswer = chunks.find((c) => c.answer !== undefined)?.answer;
  const finalText = finalAnswer ?? JSON.stringify({ handled: turn.messageIds });
  const k = turn.callIndex;
  const chunk = chunks[k];
  if (!chunk) return finalReply(finalText);
  for (const ms of chunk.thinkMs) await think(ms, sleep, signal);
  if (chunk.calls.length === 0) return finalReply(finalText);
  const toolCalls: ToolCall[] = chunk.calls.map((call, i) => ({
    id: `call-${k}-${i}`,
    name: call.name,
    argumentsJson: JSON.stringify(call.args),
  }));
  return { message: { content: null, toolCalls }, finishReason: 'tool_calls' };
}
