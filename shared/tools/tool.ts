/**
 * Model-facing tools. Every tool declares a zod input schema and a complete result schema;
 * `defineTool` makes the compiler check that `execute` returns exactly what the result schema
 * promises, and `renderToolResult` is the one place results become text: validated, then compact
 * JSON (no indentation, which would cost tokens on every roster, task and receipt).
 */
import { ActivityFailure, CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import { errorMessage } from '../util/errors';
import type { ToolSpec } from '../contract/model';

export interface Tool<Input extends z.ZodType, Result extends z.ZodType, Context> {
  name: string;
  description: string;
  input: Input;
  result: Result;
  execute(input: z.output<Input>, context: Context): Promise<z.output<Result>>;
}

export type AnyTool<Context> = Tool<z.ZodType, z.ZodType, Context>;

export function defineTool<Input extends z.ZodType, Result extends z.ZodType, Context>(tool: Tool<Input, Result, Context>): Tool<Input, Result, Context> {
  return tool;
}

/** The model-facing description: name, description and the input's JSON Schema. */
export function toolSpec(tool: { name: string; description: string; input: z.ZodType }): ToolSpec {
  // The input side: a field with a default is optional for the model.
  const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/** Compact JSON of a result after checking it against the tool's result schema. */
export function renderToolResult<Result extends z.ZodType>(tool: { name: string; result: Result }, value: z.output<Result>): string {
  const checked = tool.result.safeParse(value);
  if (!checked.success) throw new TypeError(`tool ${tool.name} produced a result outside its schema: ${checked.error.message}`);
  return JSON.stringify(checked.data);
}

export type ToolOutcome = { ok: true; text: string } | { ok: false; text: string };

/**
 * Runs one model tool call end to end: parse the raw argument JSON, validate it, execute, render.
 * Malformed JSON, invalid input and typed failures come back as compact error results the model
 * can act on, never as exceptions that would fail the turn.
 */
export async function runToolCall<Context>(tool: AnyTool<Context>, argumentsJson: string, context: Context): Promise<ToolOutcome> {
  let raw: unknown;
  try {
    raw = argumentsJson.trim() === '' ? {} : JSON.parse(argumentsJson);
  } catch (error) {
    return {
      ok: false,
      text: JSON.stringify({
        error: 'InvalidToolArguments',
        message: `arguments are not valid JSON (${errorMessage(error)}); send a JSON object matching the schema`,
      }),
    };
  }
  const input = tool.input.safeParse(raw);
  if (!input.success) {
    const issues = input.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
    return { ok: false, text: JSON.stringify({ error: 'InvalidToolArguments', message: issues }) };
  }
  try {
    return { ok: true, text: renderToolResult(tool, await tool.execute(input.data, context)) };
  } catch (error) {
    // A cancelled turn (interrupt, disposal) must stop the turn, not become a result for the model.
    if (isCancelled(error)) throw error;
    return { ok: false, text: JSON.stringify(toolError(error)) };
  }
}

/**
 * The model-facing form of a failure: its stable type and actionable message, plus the facts a
 * model needs to rebase (a Team rejection's currentTask or cycle, carried in ApplicationFailure details).
 */
export function toolError(error: unknown): { error: string; message: string; currentTask?: unknown; cycle?: unknown } {
  const type = typeof error === 'object' && error !== null && 'type' in error && typeof error.type === 'string' ? error.type : 'ToolFailed';
  const result: { error: string; message: string; currentTask?: unknown; cycle?: unknown } = { error: type, message: errorMessage(error) };
  const details = typeof error === 'object' && error !== null && 'details' in error && Array.isArray(error.details) ? (error.details as unknown[]) : [];
  const first = details[0];
  if (typeof first === 'object' && first !== null) {
    if ('currentTask' in first && first.currentTask !== undefined) result.currentTask = first.currentTask;
    if ('cycle' in first && first.cycle !== undefined) result.cycle = first.cycle;
  }
  return result;
}

function isCancelled(error: unknown): boolean {
  return error instanceof CancelledFailure || (error instanceof ActivityFailure && error.cause instanceof CancelledFailure);
}
