/**
 * The schemas of the public workflow inputs: what a starter passes to a Lead (TeamLeadInput) and
 * what a Lead passes to a teammate or subagent (TeammateInput). Workflow inputs are untrusted, so
 * each workflow parses its input with these first (workflows/common/workflowInputs.ts adds the
 * carried state of a continued run, which is the workflow's own, and the checks a schema cannot
 * state). The hand-written input types in lead.ts and session.ts are checked against these
 * schemas below, so they cannot drift apart.
 */
import { z } from 'zod';
import { PROFILE_NAMES, type ConversationEntry } from './agent';
import { MAX_MEMBER_NAME_LENGTH } from './callers';
import type { TeamLeadInput } from './lead';
import { MAX_ID_LENGTH, MAX_TEAM_ID_LENGTH } from './limits';
import type { TeammateInput } from './session';
import { memberContextSchema, modelNameSchema } from './vocabulary';
import { teamModelsSchema } from './modelNames';
import { memberBudgetSchema, teamBudgetsSchema } from './budgets';

/** The largest roster a Lead may be started with (each member adds a child and its status to the carried state). */
export const MAX_ROSTER_SIZE = 32;
export const MAX_TURNS_PER_RUN = 10_000;
/** The bounds of `agent.requiredWorkWaitMs`: 1 s to 24 h. */
export const MIN_REQUIRED_WORK_WAIT_MS = 1_000;
export const MAX_REQUIRED_WORK_WAIT_MS = 24 * 60 * 60 * 1000;

export const teamIdSchema = z.string().min(1).max(MAX_TEAM_ID_LENGTH);
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const directory = z.string().min(1).max(1_000);
const taskQueue = z.string().min(1).max(200);

/** Conversation entries are checked for the fields the workflow reads; their contents are only inspected (jsonProblem). */
export const conversationSchema = z.array(
  z.looseObject({
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    turn: count,
    toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), argumentsJson: z.string() })).optional(),
  }),
);

/** TeamLeadInput's public fields; a continued run also carries its state (`carried`, the workflow's own). */
export const teamLeadInputFields = {
  teamId: teamIdSchema,
  maxMembers: z.number().int().min(1).max(MAX_ROSTER_SIZE).optional(),
  teammateMaxTurnsPerRun: z.number().int().min(1).max(MAX_TURNS_PER_RUN).optional(),
  legacyMailbox: z.array(z.unknown()).optional(),
  agent: z
    .object({
      prompt: z.string(),
      profile: z.enum(PROFILE_NAMES).optional(),
      model: modelNameSchema.nullable().optional(),
      cwd: directory.optional(),
      checkoutTaskQueue: taskQueue.optional(),
      requiredWorkWaitMs: z.number().int().min(MIN_REQUIRED_WORK_WAIT_MS).max(MAX_REQUIRED_WORK_WAIT_MS).optional(),
    })
    .optional(),
  forkOf: z.object({ teamId: teamIdSchema, conversation: conversationSchema }).optional(),
  models: teamModelsSchema.optional(),
  budgets: teamBudgetsSchema.optional(),
};
export const teamLeadInputSchema = z.object(teamLeadInputFields);

/** TeammateInput's public fields; a continued run also carries its state (`carried`). */
export const teammateInputFields = {
  descriptor: z.object({
    teamId: teamIdSchema,
    // A subagent's name is its agent id, a little longer than a teammate name.
    name: z
      .string()
      .min(1)
      .max(MAX_MEMBER_NAME_LENGTH + 20),
    context: memberContextSchema,
    initialMessageId: z.string().min(1).max(MAX_ID_LENGTH),
  }),
  model: modelNameSchema.nullable(),
  seed: conversationSchema,
  initialMessage: z.unknown(),
  cwd: directory.optional(),
  checkoutTaskQueue: taskQueue.optional(),
  maxTurnsPerRun: z.number().int().min(1).max(MAX_TURNS_PER_RUN).optional(),
  budget: memberBudgetSchema.optional(),
  teamBudget: z.literal(true).optional(),
};
export const teammateInputSchema = z.object(teammateInputFields);

// Compile-time ties: every input the typed contract allows, the schema accepts (assignments the
// compiler checks; the functions are never called). Conversations are left out: their schema is a
// loose object (the workflow keeps the original entries, so unknown fields must pass through), and
// an interface is not assignable to a type with an index signature; the entry's checked fields are
// tied on their own.
type Entry = z.input<typeof conversationSchema>[number];
export const leadInputFitsSchema = (input: Omit<TeamLeadInput, 'forkOf'>): Omit<z.input<typeof teamLeadInputSchema>, 'forkOf'> => input;
export const teammateInputFitsSchema = (input: Omit<TeammateInput, 'seed'>): Omit<z.input<typeof teammateInputSchema>, 'seed'> => input;
export const conversationEntryFitsSchema = (entry: ConversationEntry): Pick<Entry, 'role' | 'turn'> => entry;
