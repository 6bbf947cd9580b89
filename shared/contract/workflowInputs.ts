/**
 * The schemas of the public workflow inputs: what a starter passes to a Lead (TeamLeadInput) and
 * what a Lead passes to a teammate or subagent (TeammateInput). Workflow inputs are untrusted, so
 * each workflow parses its input with these first (workflows/common/workflowInputs.ts adds the
 * carried state of a continued run, which is the workflow's own, and the checks a schema cannot
 * state). The hand-written input types in lead.ts and session.ts are checked against these
 * schemas below, so they cannot drift apart.
 */
import { ApplicationFailure } from '@temporalio/common';
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

/**
 * The Team id grammar (docs/wire-contract.md, "Team ids"): 1 to MAX_TEAM_ID_LENGTH characters,
 * ASCII letters and digits, `.`, `_`, `:` and `-`, starting with a letter or digit. No `/` at all:
 * a member's reserved id is `<teamId>/teammate/<name>` or `<teamId>/subagent/<n>`, so no Team id
 * can be another Team's member id (or any later `<teamId>/<kind>/...` form). No whitespace, no
 * control characters, nothing a terminal, a URL path or a visibility query would treat specially.
 */
export const TEAM_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
/** The failure type of a Team id outside the grammar: the client, the CLI and the Lead's own start refuse it. */
export const INVALID_TEAM_ID = 'InvalidTeamId';
const TEAM_ID_HOW =
  `write 1 to ${MAX_TEAM_ID_LENGTH} characters: letters, digits, '.', '_', ':' or '-', ` +
  `starting with a letter or digit (for example "ux-ops" or "session-50")`;

/** Why `teamId` is not a Team id, as a sentence that says what to write; null when it is one. */
export function teamIdProblem(teamId: unknown): string | null {
  if (typeof teamId !== 'string') return `a Team id is a string, not ${teamId === null ? 'null' : typeof teamId}; ${TEAM_ID_HOW}`;
  if (TEAM_ID_PATTERN.test(teamId) && teamId.length <= MAX_TEAM_ID_LENGTH) return null;
  // JSON.stringify escapes quotes and C0 controls; the CLI's print boundary makes the rest inert.
  const shown = JSON.stringify(teamId.length > 120 ? `${teamId.slice(0, 120)}…` : teamId);
  let why: string;
  if (teamId.length === 0) why = 'it is empty';
  else if (teamId.length > MAX_TEAM_ID_LENGTH) why = `it is ${teamId.length} characters long, over ${MAX_TEAM_ID_LENGTH}`;
  else if (teamId.includes('/')) why = "it contains '/', which only members' reserved ids have (<teamId>/teammate/<name>, <teamId>/subagent/<n>)";
  // eslint-disable-next-line no-control-regex
  else if (/[\s\u0000-\u001f\u007f-\u009f]/.test(teamId)) why = 'it contains whitespace or a control character';
  else if (!/^[A-Za-z0-9]/.test(teamId)) why = 'it does not start with a letter or a digit';
  else why = `it contains ${JSON.stringify([...teamId].find((c) => !/[A-Za-z0-9._:-]/.test(c)) ?? '?')}, which a Team id may not`;
  return `the Team id ${shown} is not valid: ${why}; ${TEAM_ID_HOW}`;
}

/** A Team id in the grammar; the one schema the client, the CLI and the Lead check ids with. */
export const teamIdSchema = z.string().superRefine((teamId, ctx) => {
  const problem = teamIdProblem(teamId);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

/** `teamId` itself, or the typed InvalidTeamId (non-retryable) whose message says what to write. */
export function checkTeamId(teamId: unknown): string {
  const problem = teamIdProblem(teamId);
  if (problem !== null) throw ApplicationFailure.create({ type: INVALID_TEAM_ID, message: problem, nonRetryable: true });
  return teamId as string;
}

/**
 * The shape a recorded workflow input's Team id was parsed with before the grammar existed: the
 * workflows parse their inputs with it, so every recorded history replays; a new Lead run then
 * checks its id against the grammar (workflows/common/workflowInputs.ts, under a patch).
 */
export const recordedTeamIdSchema = z.string().min(1).max(MAX_TEAM_ID_LENGTH);
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
  teamId: recordedTeamIdSchema,
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
  forkOf: z.object({ teamId: recordedTeamIdSchema, conversation: conversationSchema }).optional(),
  models: teamModelsSchema.optional(),
  budgets: teamBudgetsSchema.optional(),
};
export const teamLeadInputSchema = z.object(teamLeadInputFields);

/** TeammateInput's public fields; a continued run also carries its state (`carried`). */
export const teammateInputFields = {
  descriptor: z.object({
    teamId: recordedTeamIdSchema,
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
