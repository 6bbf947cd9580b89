/**
 * The Team profile's tools: zod input and complete result schemas, executed against a
 * TeamToolContext. The same definitions serve the Lead (whose context calls the Lead's logic inside
 * its own workflow) and teammates (whose context sends attributed Updates from an activity), so
 * schemas stay uniform across members while execution enforces role restrictions (LeadOnly, ...).
 * Models pass member names, never a Team id: the context already knows the caller's Team.
 * Each tool's arguments are the wire body of its Update (shared/contract/taskCommands.ts and
 * shared/contract/requests.ts) without what the runtime supplies (`caller`, `messageId`), plus descriptions
 * for the model: the rules live in one place, so a tool never accepts what its Update refuses.
 */
import type { UpdateDefinition } from '@temporalio/common';
import { z } from 'zod';
import * as defs from '../contract';
import type { Attributed, LiveStatus, TaskMutationResult, TaskView, TeamView } from '../contract';
import {
  callerOnlySchema,
  interruptRequestSchema,
  sendEnvelopeSchema,
  setBudgetRequestSchema,
  spawnRequestSchema,
  waitRequestSchema,
} from '../contract/requests';
import { budgetLimitsSchema } from '../contract/budgets';
import { defineTool, type AnyTool } from '../tools/tool';
import {
  agentStatusSchema,
  liveStatusSchema,
  memberContextSchema,
  memberPhaseSchema,
  EDGE_KINDS,
  MEMBER_EDGE_KINDS,
  TASK_STATUSES,
} from '../contract/vocabulary';
import {
  LEAD,
  assignTaskBody,
  claimTaskBody,
  createTaskBody,
  deleteTaskBody,
  editTaskBody,
  releaseTaskBody,
  revisionSchema,
  transitionTaskBody,
} from '../contract';

export interface TeamToolContext {
  /** The acting member, attributed by the runtime. */
  caller: string;
  update<Ret, Req extends Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>): Promise<Ret>;
  roster(): Promise<{ view: TeamView; liveStatus: Record<string, LiveStatus> }>;
}

// ---- result schemas ------------------------------------------------------------------------

const taskForModel = z.strictObject({
  id: z.number(),
  revision: z.number(),
  subject: z.string(),
  description: z.string(),
  status: z.enum(TASK_STATUSES),
  owner: z.string().nullable(),
  dependencies: z.array(z.number()),
  writeScopes: z.array(z.string()),
  ready: z.boolean(),
  overlaps: z.array(z.strictObject({ taskId: z.number(), scope: z.string(), otherScope: z.string() })),
});
type TaskForModel = z.output<typeof taskForModel>;

/** The task as a model needs it: no timestamps or tombstone flag (deleted tasks are not listed). */
function forModel(task: TaskView): TaskForModel {
  return {
    id: task.id,
    revision: task.revision,
    subject: task.subject,
    description: task.description,
    status: task.status,
    owner: task.owner,
    dependencies: task.dependencies,
    writeScopes: task.writeScopes,
    ready: task.ready,
    overlaps: task.overlaps,
  };
}

const taskResult = z.strictObject({ task: taskForModel });
const liveStatus = liveStatusSchema;
const memberPhase = memberPhaseSchema;
const agentStatus = agentStatusSchema;

// ---- what the model reads about the wire's fields ----------------------------------------------

const MEMBER_NAME = 'a teammate name (lowercase kebab-case), or "lead"';
const EXPECTED_REVISION = 'the revision you last read; a stale one is rejected with TaskRevisionConflict';
const MESSAGE_CONTENT = 'the message: text, or any JSON value';

/** The task commands' own revision rule, described. */
const expectedRevision = revisionSchema.describe(EXPECTED_REVISION);

// ---- tools ---------------------------------------------------------------------------------

export const spawnTeammateTool = defineTool({
  name: 'spawn_teammate',
  description:
    'Lead only. Add a named teammate to the roster and give it its first message. context "fresh" starts with no conversation; ' +
    '"fork" starts with your conversation up to (not including) this turn. Names are reserved forever, also after failure.',
  input: spawnRequestSchema.omit({ caller: true }).extend({
    name: spawnRequestSchema.shape.name.describe('lowercase kebab-case, e.g. "api-writer"'),
    message: spawnRequestSchema.shape.message.describe(MESSAGE_CONTENT),
    model: spawnRequestSchema.shape.model.describe('model for this teammate; default: the Team default'),
  }),
  result: z.strictObject({
    name: z.string(),
    phase: memberPhase,
    context: memberContextSchema,
    failure: z.string().nullable(),
    initialMessageId: z.string(),
  }),
  async execute(input, ctx: TeamToolContext) {
    const result = await ctx.update(defs.spawnTeammateUpdate, {
      name: input.name,
      context: input.context,
      message: (input.message ?? '') as defs.SpawnTeammateRequest['message'],
      model: input.model,
    });
    return {
      name: result.member.name,
      phase: result.member.phase,
      context: result.member.context,
      failure: result.member.failure,
      initialMessageId: result.initialMessageId,
    };
  },
});

export const sendMessageTool = defineTool({
  name: 'send_message',
  description: "Send a message into a member's inbox (running, idle or not resident). Returns inbox acceptance: the message id and the target's phase.",
  input: sendEnvelopeSchema.omit({ caller: true, messageId: true }).extend({
    to: sendEnvelopeSchema.shape.to.describe(MEMBER_NAME),
    content: sendEnvelopeSchema.shape.content.describe(MESSAGE_CONTENT),
  }),
  result: z.strictObject({ messageId: z.string(), to: z.string(), targetPhase: z.union([memberPhase, z.literal('lead')]), targetStatus: liveStatus }),
  async execute(input, ctx: TeamToolContext) {
    const acceptance = await ctx.update(defs.sendMessageUpdate, { to: input.to, content: (input.content ?? '') as defs.SendMessageRequest['content'] });
    return { messageId: acceptance.messageId, to: acceptance.to, targetPhase: acceptance.targetPhase, targetStatus: acceptance.targetStatus };
  },
});

/** A task mutation tool: exactly one Update, answered with the task as a model needs it. */
function taskMutationTool<Req extends Attributed, Input extends z.ZodType<Omit<Req, 'caller'>>>(spec: {
  name: string;
  description: string;
  input: Input;
  update: UpdateDefinition<TaskMutationResult, [Req]>;
}) {
  return defineTool({
    name: spec.name,
    description: spec.description,
    input: spec.input,
    result: taskResult,
    async execute(input, ctx: TeamToolContext) {
      const { task } = await ctx.update(spec.update, input);
      return { task: forModel(task) };
    },
  });
}

export const createTaskTool = taskMutationTool({
  name: 'create_task',
  description:
    'Create a task on the shared board. dependencies: ids that must be completed first. ' +
    'writeScopes: path prefixes the task will write (advisory; overlaps are reported, never blocked).',
  input: createTaskBody,
  update: defs.createTaskUpdate,
});

export const editTaskTool = taskMutationTool({
  name: 'edit_task',
  description: "Owner or Lead: change a task's subject, description, dependencies or writeScopes.",
  // safeExtend: keeps the wire's at-least-one-field refinement.
  input: editTaskBody.safeExtend({ expectedRevision }),
  update: defs.editTaskUpdate,
});

export const claimTaskTool = taskMutationTool({
  name: 'claim_task',
  description: 'Claim a ready, unowned task: you become its owner and it moves to in_progress.',
  input: claimTaskBody.extend({ expectedRevision }),
  update: defs.claimTaskUpdate,
});

export const assignTaskTool = taskMutationTool({
  name: 'assign_task',
  description: 'Lead only: give a task to a member (owner), or clear the owner with null.',
  input: assignTaskBody.extend({ expectedRevision, owner: assignTaskBody.shape.owner.unwrap().describe(MEMBER_NAME).nullable() }),
  update: defs.assignTaskUpdate,
});

export const releaseTaskTool = taskMutationTool({
  name: 'release_task',
  description: 'Owner or Lead: give a task back to the board (pending, no owner).',
  input: releaseTaskBody.extend({ expectedRevision }),
  update: defs.releaseTaskUpdate,
});

export const setTaskStatusTool = taskMutationTool({
  name: 'set_task_status',
  description: 'Owner or Lead: move a task to another status (pending, in_progress, completed, cancelled) along the allowed transitions.',
  input: transitionTaskBody.extend({ expectedRevision }),
  update: defs.transitionTaskUpdate,
});

export const deleteTaskTool = defineTool({
  name: 'delete_task',
  description: 'Owner or Lead: delete a task (kept as a tombstone; tasks that others depend on cannot be deleted).',
  input: deleteTaskBody.extend({ expectedRevision }),
  result: z.strictObject({ taskId: z.number(), revision: z.number(), deleted: z.literal(true) }),
  async execute(input, ctx: TeamToolContext) {
    const { task } = await ctx.update(defs.deleteTaskUpdate, input);
    return { taskId: task.id, revision: task.revision, deleted: true as const };
  },
});

export const listTasksTool = defineTool({
  name: 'list_tasks',
  description: 'Read the whole board (non-deleted tasks) as of now, with readiness and write-scope overlaps.',
  input: callerOnlySchema.omit({ caller: true }),
  result: z.strictObject({ tasks: z.array(taskForModel) }),
  async execute(_input, ctx: TeamToolContext) {
    const tasks = await ctx.update(defs.listTasksUpdate, {});
    return { tasks: tasks.map(forModel) };
  },
});

export const waitAgentTool = defineTool({
  name: 'wait_agent',
  description:
    'Block until the next roster, mailbox, task or status change that happens after this call starts, or the timeout. ' +
    'It does not report earlier changes: after waking, re-read the board or roster.',
  // The one tool-only rule: a model may leave timeoutMs out (five minutes).
  // Members wait on member edges only (no `failure`: other callers' refusals are for views).
  // Never `afterSeq`: a model's wait sees only what happens after its call starts (seed rule 59).
  input: waitRequestSchema
    .omit({ caller: true, afterSeq: true })
    .extend({ timeoutMs: waitRequestSchema.shape.timeoutMs.default(300_000), kinds: z.array(z.enum(MEMBER_EDGE_KINDS)).min(1).optional() }),
  result: z.union([
    z.strictObject({ woke: z.literal('edge'), kind: z.enum(EDGE_KINDS), subject: z.string() }),
    z.strictObject({ woke: z.literal('timeout') }),
    z.strictObject({ woke: z.literal('rollover') }),
  ]),
  async execute(input, ctx: TeamToolContext) {
    const result = await ctx.update(defs.waitForEdgeUpdate, input.kinds ? { timeoutMs: input.timeoutMs, kinds: input.kinds } : { timeoutMs: input.timeoutMs });
    if (result.woke === 'edge') return { woke: 'edge' as const, kind: result.edge.kind, subject: result.edge.subject };
    return result.woke === 'timeout' ? { woke: 'timeout' as const } : { woke: 'rollover' as const };
  },
});

export const interruptTeammateTool = defineTool({
  name: 'interrupt_teammate',
  description: "Lead only: cancel a teammate's current turn. Its inbox and task ownership stay as they are.",
  input: interruptRequestSchema.omit({ caller: true }).extend({ name: interruptRequestSchema.shape.name.describe(MEMBER_NAME) }),
  result: z.strictObject({ name: z.string(), statusAtInterrupt: liveStatus }),
  async execute(input, ctx: TeamToolContext) {
    const result = await ctx.update(defs.interruptTeammateUpdate, { name: input.name });
    return { name: result.name, statusAtInterrupt: result.statusAtInterrupt };
  },
});

const budgetCaps = budgetLimitsSchema.describe(
  'The new caps, replacing the old ones: calls (model calls), tokens (input plus output), costUsd, turns, activeSeconds. ' +
    'Each must be at most the current cap, and every current cap must stay',
);
export const lowerBudgetTool = defineTool({
  name: 'lower_budget',
  description:
    "Lead only: lower a teammate's budget (or your own: name lead), for example to stop a runaway exchange. You can never raise a budget, " +
    'nor remove a cap: only the operator can. A teammate that uses its budget up stops before its next model call and you are told.',
  input: setBudgetRequestSchema.omit({ caller: true }).extend({ name: setBudgetRequestSchema.shape.name.describe(MEMBER_NAME), budget: budgetCaps }),
  result: z.strictObject({ name: z.string(), budget: budgetLimitsSchema, previous: budgetLimitsSchema.nullable() }),
  async execute(input, ctx: TeamToolContext) {
    const result = await ctx.update(defs.setBudgetUpdate, { name: input.name, budget: input.budget });
    return { name: result.name, budget: result.budget, previous: result.previous };
  },
});

export const readRosterTool = defineTool({
  name: 'read_roster',
  description: 'Read the roster: every member with its durable phase and live status, the member limit and whether admission is open.',
  input: z.strictObject({}),
  result: z.strictObject({
    maxMembers: z.number(),
    admission: z.enum(['open', 'closed']),
    // The Lead pseudo-row, as in every view: it exists by identity; status is the Lead agent's (null without one).
    lead: z.strictObject({ name: z.literal(LEAD), role: z.literal('lead'), phase: z.literal('active'), status: agentStatus.nullable() }),
    members: z.array(
      z.strictObject({
        name: z.string(),
        phase: memberPhase,
        context: memberContextSchema,
        model: z.string().nullable(),
        status: liveStatus.nullable(),
        failure: z.string().nullable(),
      }),
    ),
  }),
  async execute(_input, ctx: TeamToolContext) {
    const { view, liveStatus: live } = await ctx.roster();
    return {
      maxMembers: view.maxMembers,
      admission: view.admission,
      lead: { name: view.lead.name, role: view.lead.role, phase: view.lead.phase, status: view.lead.status },
      members: view.members.map((m) => ({
        name: m.name,
        phase: m.phase,
        context: m.context,
        model: m.model,
        status: live[m.name] ?? null,
        failure: m.failure,
      })),
    };
  },
});

/** Every Team tool, in catalog order. */
export const TEAM_TOOLS: readonly AnyTool<TeamToolContext>[] = [
  spawnTeammateTool,
  sendMessageTool,
  createTaskTool,
  editTaskTool,
  claimTaskTool,
  assignTaskTool,
  releaseTaskTool,
  setTaskStatusTool,
  deleteTaskTool,
  listTasksTool,
  waitAgentTool,
  interruptTeammateTool,
  lowerBudgetTool,
  readRosterTool,
];
