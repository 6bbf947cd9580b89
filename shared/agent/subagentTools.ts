/**
 * The default profile's delegation tools: ordinary subagents outside any roster (fresh or fork),
 * plus the legacy continuable controls (send_input, wait_agent, close_agent) over the subagents a
 * session started itself. The Team profile disables all of these; its wait_agent has the same
 * model-visible name and replaces the legacy one.
 */
import { z } from 'zod';
import type { SubagentAnswer } from '../contract';
import { defineTool, type AnyTool } from '../tools/tool';
import { modelNameSchema, type MemberContext } from '../contract/vocabulary';

export interface SubagentToolContext {
  /** Starts a child session with `prompt` as its first message and waits for its first answer. */
  startSubagent(request: { prompt: string; context: MemberContext; model: string | null }): Promise<SubagentAnswer>;
  sendInput(agentId: string, message: string): Promise<{ agentId: string; messageId: string }>;
  /** The next answer of that subagent after this call began, or null on timeout. */
  waitAgent(agentId: string, timeoutMs: number): Promise<SubagentAnswer | null>;
  closeAgent(agentId: string): Promise<{ agentId: string; closed: boolean }>;
}

const answerResult = z.strictObject({ agentId: z.string(), turn: z.number(), answer: z.string().nullable() });
const agentId = z.string().min(1).max(300).describe('the agentId a subagent call returned');

export const subagentTool = defineTool({
  name: 'subagent',
  description:
    'Start a subagent with a fresh context on a self-contained piece of work and wait for its answer. ' +
    'It keeps running for follow-ups (send_input) until you close it.',
  input: z.strictObject({ prompt: z.string().min(1).max(50_000), model: modelNameSchema.optional() }),
  result: answerResult,
  execute: (input, ctx: SubagentToolContext) => ctx.startSubagent({ prompt: input.prompt, context: 'fresh', model: input.model ?? null }),
});

export const subagentForkTool = defineTool({
  name: 'subagent_fork',
  description: 'Like subagent, but the subagent starts with your conversation up to (not including) this turn.',
  input: z.strictObject({ prompt: z.string().min(1).max(50_000), model: modelNameSchema.optional() }),
  result: answerResult,
  execute: (input, ctx: SubagentToolContext) => ctx.startSubagent({ prompt: input.prompt, context: 'fork', model: input.model ?? null }),
});

export const sendInputTool = defineTool({
  name: 'send_input',
  description: 'Send a follow-up message to a subagent you started; use wait_agent for its next answer.',
  input: z.strictObject({ agentId, message: z.string().min(1).max(50_000) }),
  result: z.strictObject({ agentId: z.string(), messageId: z.string() }),
  execute: (input, ctx: SubagentToolContext) => ctx.sendInput(input.agentId, input.message),
});

export const legacyWaitAgentTool = defineTool({
  name: 'wait_agent',
  description: 'Wait for the next answer of a subagent you started (answers given before this call are not replayed), or the timeout.',
  input: z.strictObject({ agentId, timeoutMs: z.number().int().min(1).max(3_600_000).default(300_000) }),
  result: z.union([answerResult.extend({ woke: z.literal('answer') }), z.strictObject({ woke: z.literal('timeout'), agentId: z.string() })]),
  async execute(input, ctx: SubagentToolContext) {
    const answer = await ctx.waitAgent(input.agentId, input.timeoutMs);
    return answer ? { woke: 'answer' as const, ...answer } : { woke: 'timeout' as const, agentId: input.agentId };
  },
});

export const closeAgentTool = defineTool({
  name: 'close_agent',
  description: 'Stop a subagent you started.',
  input: z.strictObject({ agentId }),
  result: z.strictObject({ agentId: z.string(), closed: z.boolean() }),
  execute: (input, ctx: SubagentToolContext) => ctx.closeAgent(input.agentId),
});

export const SUBAGENT_TOOLS: readonly AnyTool<SubagentToolContext>[] = [subagentTool, subagentForkTool, sendInputTool, legacyWaitAgentTool, closeAgentTool];
