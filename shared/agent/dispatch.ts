/**
 * Tool dispatch by name: the toolset says which executor owns a tool; Team and subagent tools run
 * here against a context (the Lead's in-workflow logic, or a teammate's activity client), work
 * tools run as activities on the checkout's task queue. Unknown names come back to the model as a
 * typed error result, never as an exception.
 */
import type { SendOutcome } from '../contract';
import type { ToolCall } from '../contract/model';
import { runToolCall, type AnyTool } from '../tools/tool';
import type { DispatchResult } from './loop';
import { toolKind, toolNames, type ToolKind, type Toolset } from './profiles';
import { SUBAGENT_TOOLS, type SubagentToolContext } from './subagentTools';
import { TEAM_TOOLS, type TeamToolContext } from './teamTools';

export type ToolExecutors = Record<ToolKind, (call: ToolCall, opId: string) => Promise<DispatchResult>>;

export function unknownToolResult(toolset: Toolset, name: string): DispatchResult {
  return {
    ok: false,
    text: JSON.stringify({ error: 'UnknownTool', message: `there is no tool "${name}" here; available tools: ${toolNames(toolset).join(', ')}` }),
  };
}

export async function dispatchByName(toolset: Toolset, call: ToolCall, opId: string, executors: ToolExecutors): Promise<DispatchResult> {
  const kind = toolKind(toolset, call.name);
  if (!kind) return unknownToolResult(toolset, call.name);
  return executors[kind](call, opId);
}

function find<C>(tools: readonly AnyTool<C>[], name: string): AnyTool<C> | undefined {
  return tools.find((t) => t.name === name);
}

/** The receipt a send_message result becomes on the turn's final assistant entry. */
export function sendReceipt(outcome: { ok: boolean; text: string }): SendOutcome {
  const value = JSON.parse(outcome.text) as Record<string, unknown>;
  if (outcome.ok) return { ok: true, acceptance: value as unknown as Extract<SendOutcome, { ok: true }>['acceptance'] };
  return { ok: false, type: String(value.error), message: String(value.message) };
}

/** Runs a Team tool call against a context; every result is a Team record. */
export async function runTeamToolCall(call: ToolCall, context: TeamToolContext): Promise<DispatchResult> {
  const tool = find(TEAM_TOOLS, call.name);
  if (!tool) return { ...unknownToolResult('team', call.name), teamRecord: true };
  const outcome = await runToolCall(tool, call.argumentsJson, context);
  return { ...outcome, teamRecord: true, ...(call.name === 'send_message' ? { receipt: sendReceipt(outcome) } : {}) };
}

export async function runSubagentToolCall(call: ToolCall, context: SubagentToolContext): Promise<DispatchResult> {
  const tool = find(SUBAGENT_TOOLS, call.name);
  if (!tool) return unknownToolResult('default', call.name);
  return runToolCall(tool, call.argumentsJson, context);
}
