/**
 * Every enum of the wire, once: a constant array, the type derived from it, and (where the wire
 * parses it) the zod schema built from the same array. The core, the schemas the Lead parses with
 * and the tool schemas the model sees all read these.
 */
import { z } from 'zod';

/** A teammate's live status as it reports it (advisory, not durable roster state). */
export const LIVE_STATUSES = ['starting', 'running', 'idle', 'exited'] as const;
export type LiveStatus = (typeof LIVE_STATUSES)[number];

/** The Lead agent's status. `failed`: the last turn failed for good (e.g. the model rejected the request); a new prompt starts another turn. */
export const AGENT_STATUSES = ['running', 'waiting', 'idle', 'answered', 'failed'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** A roster record's durable phase. */
export const MEMBER_PHASES = ['provisioning', 'active', 'failed', 'stopped'] as const;
export type MemberPhase = (typeof MEMBER_PHASES)[number];

/** How a teammate or subagent starts: with no conversation, or with the Lead's completed turns. */
export const MEMBER_CONTEXTS = ['fresh', 'fork'] as const;
export type MemberContext = (typeof MEMBER_CONTEXTS)[number];

/** Whether a Team takes new teammates and sends: it closes for good when disposal begins. */
export const ADMISSIONS = ['open', 'closed'] as const;
export type Admission = (typeof ADMISSIONS)[number];

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * What a member waits on, and what a wait that names no kinds wakes on: every kind but `failure`.
 * Another caller's refused operation changes nothing a waiting member acts on, and waking it would
 * cost a model turn.
 */
export const MEMBER_EDGE_KINDS = ['roster', 'mailbox', 'task', 'status'] as const;
export const EDGE_KINDS = [...MEMBER_EDGE_KINDS, 'failure'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export const liveStatusSchema = z.enum(LIVE_STATUSES);
export const agentStatusSchema = z.enum(AGENT_STATUSES);
export const memberPhaseSchema = z.enum(MEMBER_PHASES);
export const memberContextSchema = z.enum(MEMBER_CONTEXTS);
export const taskStatusSchema = z.enum(TASK_STATUSES);
export const edgeKindSchema = z.enum(EDGE_KINDS);

/** The longest model name a start, a spawn or a subagent may ask for. */
export const MAX_MODEL_NAME_LENGTH = 200;
/** A model name as the wire takes it; which models a Team may use is the deployment's (docs/agent-runtime.md). */
export const modelNameSchema = z.string().min(1).max(MAX_MODEL_NAME_LENGTH);
