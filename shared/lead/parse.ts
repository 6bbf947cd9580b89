/**
 * Parses the Lead's Update inputs into typed requests, or throws the typed failure a caller sees
 * (InvalidTeamCommand, PayloadTooLarge). Validators and handlers parse the same way; the decide
 * functions (decide.ts) then take only typed requests.
 */
import type { z } from 'zod';
import { answerFailure, invalidInputFailure, rejectionFailure } from '../contract/failures';
import { jsonProblem, type JsonValue } from '../contract/json';
import { MAX_MESSAGE_BYTES, jsonBytes } from '../contract/limits';
import { callerOnlySchema, promptRequestSchema, sendEnvelopeSchema, spawnRequestSchema } from '../contract/requests';
import { type TaskCommand, type TaskCommandKind, TASK_COMMAND_BODIES } from '../contract/taskCommands';
import { reject } from '../contract/rejections';

export type SpawnRequest = z.infer<typeof spawnRequestSchema> & { message: JsonValue };
export type SendRequest = z.infer<typeof sendEnvelopeSchema> & { content: JsonValue };
export type PromptRequest = z.infer<typeof promptRequestSchema>;

export function parseWith<T>(updateName: string, schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInputFailure(updateName, parsed.error);
  return parsed.data;
}

export function parseSpawn(input: unknown): SpawnRequest {
  const request = parseWith('spawnTeammate', spawnRequestSchema, input);
  const message = originalJson('spawnTeammate', input, 'message');
  requireMessageSize('spawnTeammate', message);
  return { ...request, message };
}

export function parseSend(input: unknown): SendRequest {
  const request = parseWith('sendMessage', sendEnvelopeSchema, input);
  const content = originalJson('sendMessage', input, 'content');
  requireMessageSize('sendMessage', content);
  return { ...request, content };
}

export function parsePrompt(input: unknown): PromptRequest {
  const request = parseWith('promptLead', promptRequestSchema, input);
  requireMessageSize('promptLead', request.content);
  return request;
}

export function parseTaskCommand(kind: TaskCommandKind, input: unknown): { caller: string; command: TaskCommand } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw answerFailure({
      type: 'InvalidTeamCommand',
      message: `${kind} takes one object argument; see the wire contract in docs/wire-contract.md`,
      nonRetryable: true,
    });
  }
  const { caller, ...body } = input as Record<string, unknown>;
  const { caller: parsedCaller } = parseWith(kind, callerOnlySchema, { caller });
  const parsedBody = parseWith(kind, TASK_COMMAND_BODIES[kind] as z.ZodType<object>, body);
  return { caller: parsedCaller, command: { kind, ...parsedBody } as TaskCommand };
}

/**
 * Message content must stay exactly the decoded JSON it arrived as (an own `__proto__` key
 * included), so it is taken from the original input by descriptor and only inspected.
 */
function originalJson(updateName: string, input: unknown, field: string): JsonValue {
  const value: unknown = typeof input === 'object' && input !== null ? Object.getOwnPropertyDescriptor(input, field)?.value : undefined;
  const problem = value === undefined ? `${field} is required` : jsonProblem(value);
  if (problem) throw answerFailure({ type: 'InvalidTeamCommand', message: `${updateName} input is invalid: ${field}: ${problem}`, nonRetryable: true });
  return value as JsonValue;
}

function requireMessageSize(updateName: string, content: JsonValue): void {
  const bytes = jsonBytes(content);
  if (bytes > MAX_MESSAGE_BYTES) {
    throw rejectionFailure(
      reject(
        'PayloadTooLarge',
        `${updateName}: the message is ${bytes} bytes of JSON, over the ${MAX_MESSAGE_BYTES}-byte limit; ` +
          `send a shorter message (e.g. write the long part to a file in the checkout and send its path)`,
      ),
    );
  }
}
