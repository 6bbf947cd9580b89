/**
 * Workflow inputs are untrusted: anyone who can start a workflow can pass anything. They are
 * parsed before the workflow touches them; a bad input fails the workflow at once with a typed
 * InvalidWorkflowInput (never a workflow task failure that retries for ever). The parsed shape is
 * checked, but the original input is what the workflow keeps, so message content and carried
 * conversations are never rebuilt (an own __proto__ key survives).
 */
import { ApplicationFailure, patched } from '@temporalio/workflow';
import { z } from 'zod';
import type { LeadRunInput } from '../../shared/lead/carried';
import type { TeammateRunInput } from '../../shared/session/carried';
import { CARRIED_CONVERSATION_MAX_BYTES, MAX_MESSAGE_BYTES, PAYLOAD_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import { jsonProblem } from '../../shared/contract/json';
import { deliveryProblem } from '../../shared/session/delivery';
import { errorMessage } from '../../shared/util/errors';
import { MODEL_NOT_ALLOWED, modelNotAllowed, resolveModel } from '../../shared/contract/modelNames';
import { BUDGET_UNPRICED, budgetExhaustionSchema, memberBudgetSchema } from '../../shared/contract/budgets';
import { unpricedBudget, unpricedTeamBudget } from '../../shared/agent/spend';
import { memberUsageSchema, usageTotalsSchema } from '../../shared/contract/usage';
import {
  INVALID_TEAM_ID,
  MAX_ROSTER_SIZE,
  conversationSchema,
  recordedTeamIdSchema,
  teamIdProblem,
  teamLeadInputFields,
  teammateInputFields,
} from '../../shared/contract/workflowInputs';
import { TEAM_ID_GRAMMAR_PATCH } from '../../shared/contract/patches';

export const INVALID_WORKFLOW_INPUT = 'InvalidWorkflowInput';
const teamId = recordedTeamIdSchema;
const conversation = conversationSchema;
const record = z.record(z.string(), z.unknown());
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** The carried state is the Lead's own, but a starter could forge one: check its shape, not every field. */
const carriedTeamSchema = z.object({
  teamId,
  maxMembers: z.number().int().min(1).max(MAX_ROSTER_SIZE),
  admission: z.enum(['open', 'closed']),
  members: record,
  tasks: record,
  nextTaskId: count,
});
const carriedLeadFields = {
  leadInbox: z.object({ pending: z.array(z.unknown()), seen: z.array(z.string()), received: count, consumed: count }),
  edges: z.object({ lastSeq: count, recent: z.array(z.unknown()) }),
  liveStatus: record,
  legacyMailbox: z.object({ records: z.array(z.unknown()), problems: z.array(z.unknown()) }),
  recentUpdates: z.array(z.object({ updateId: z.string() })),
  continuedRuns: count,
  agent: z.looseObject({ conversation, turns: count, subagents: record, usage: memberUsageSchema.optional() }).optional(),
  memberUsage: z.record(z.string(), usageTotalsSchema).optional(),
};
/** The current shape carries the Team as `team`; runs of earlier versions carried it as `state` (shared/lead/state.ts upgrades it). */
const carriedLeadSchema = z.union([z.object({ team: carriedTeamSchema, ...carriedLeadFields }), z.object({ state: carriedTeamSchema, ...carriedLeadFields })]);

/** The contract's public fields, and the carried state of a continued run. */
const leadInputSchema = z.object({ ...teamLeadInputFields, carried: carriedLeadSchema.optional() });

function invalid(workflow: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: INVALID_WORKFLOW_INPUT,
    message: `${workflow} input is invalid: ${problem}. See the wire contract in docs/wire-contract.md; start it again with a valid input.`,
    nonRetryable: true,
  });
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
}

/** The Lead's input, with its teamId equal to the workflow id (teammates act on the board of the Team whose id they carry). */
export function parseLeadInput(input: unknown, workflowId: string): LeadRunInput {
  return typedOnly('teamLead', () => checkLeadInput(input, workflowId));
}

/** Any unexpected error while checking (a value too deep to measure, say) is an invalid input too. */
function typedOnly<T>(workflow: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    throw invalid(workflow, `it could not be checked (${errorMessage(error)})`);
  }
}

function checkLeadInput(input: unknown, workflowId: string): LeadRunInput {
  const parsed = leadInputSchema.safeParse(input);
  if (!parsed.success) throw invalid('teamLead', issues(parsed.error));
  const lead = parsed.data;
  if (lead.teamId !== workflowId) throw invalid('teamLead', `teamId "${lead.teamId.slice(0, 120)}" must equal the workflow id "${workflowId.slice(0, 120)}"`);
  // A fresh start only: a continued run carries a Team that already exists, whose children it owns.
  const idProblem = lead.carried ? null : teamIdProblem(workflowId);
  if (idProblem !== null && patched(TEAM_ID_GRAMMAR_PATCH)) {
    throw ApplicationFailure.create({ type: INVALID_TEAM_ID, message: `this Lead was not started: ${idProblem}`, nonRetryable: true });
  }
  const carriedTeam = lead.carried && ('team' in lead.carried ? lead.carried.team : lead.carried.state);
  if (carriedTeam && carriedTeam.teamId !== workflowId) throw invalid('teamLead', 'the carried Team id must equal the workflow id');
  if (lead.agent && !lead.carried) {
    if (lead.agent.prompt.trim() === '') throw invalid('teamLead', 'agent.prompt must not be empty');
    if (jsonBytes(lead.agent.prompt) > MAX_MESSAGE_BYTES) throw invalid('teamLead', `agent.prompt is over the ${MAX_MESSAGE_BYTES}-byte message limit`);
  }
  // A raw start may pass any list and any model; the typed client checks the same before it starts.
  const modelProblem = modelNotAllowed(lead.models, lead.agent?.model);
  if (modelProblem) {
    throw ApplicationFailure.create({
      type: MODEL_NOT_ALLOWED,
      message: `the Lead's ${modelProblem}; start the Team again with one of them`,
      nonRetryable: true,
    });
  }
  const unpriced = lead.agent ? unpricedBudget(lead.budgets?.lead, resolveModel(lead.models, lead.agent.model), lead.models?.prices) : null;
  if (unpriced) throw ApplicationFailure.create({ type: BUDGET_UNPRICED, message: `the Lead's ${unpriced}; start the Team again`, nonRetryable: true });
  const teamUnpriced = unpricedTeamBudget(lead.budgets?.team, lead.models);
  if (teamUnpriced) throw ApplicationFailure.create({ type: BUDGET_UNPRICED, message: `${teamUnpriced}; start the Team again`, nonRetryable: true });
  if (lead.forkOf && conversationProblem(lead.forkOf.conversation))
    throw invalid('teamLead', `forkOf.conversation: ${conversationProblem(lead.forkOf.conversation)}`);
  if (lead.forkOf && jsonBytes(lead.forkOf.conversation) > CARRIED_CONVERSATION_MAX_BYTES) {
    throw invalid('teamLead', `forkOf.conversation is over the ${CARRIED_CONVERSATION_MAX_BYTES}-byte conversation budget`);
  }
  if (jsonBytes(input) > PAYLOAD_MAX_BYTES) throw invalid('teamLead', `the input is over the ${PAYLOAD_MAX_BYTES}-byte payload budget`);
  return input as LeadRunInput;
}

const sessionInputSchema = z.object({
  ...teammateInputFields,
  carried: z
    .object({
      inbox: z.object({ pending: z.array(z.unknown()), seen: z.array(z.string()), received: count, consumed: count }),
      conversation,
      turns: count,
      interruptedTurns: count,
      continuedRuns: count,
      cwd: z.string().max(1_000).optional(),
      settled: count.optional(),
      usage: memberUsageSchema.optional(),
      exhaustionReported: z.boolean().optional(),
      budget: memberBudgetSchema.optional(),
      teamStop: budgetExhaustionSchema.optional(),
    })
    .optional(),
});

/** A teammate's or subagent's input; `expectedWorkflowId` (a teammate's reserved id) ties the descriptor to the workflow. */
export function parseSessionInput(
  workflow: string,
  input: unknown,
  workflowId: string,
  expectedWorkflowId?: (teamId: string, name: string) => string,
): TeammateRunInput {
  return typedOnly(workflow, () => checkSessionInput(workflow, input, workflowId, expectedWorkflowId));
}

function checkSessionInput(
  workflow: string,
  input: unknown,
  workflowId: string,
  expectedWorkflowId?: (teamId: string, name: string) => string,
): TeammateRunInput {
  const parsed = sessionInputSchema.safeParse(input);
  if (!parsed.success) throw invalid(workflow, issues(parsed.error));
  const { descriptor, seed, initialMessage } = parsed.data;
  if (expectedWorkflowId && expectedWorkflowId(descriptor.teamId, descriptor.name) !== workflowId) {
    throw invalid(workflow, `the descriptor names ${descriptor.teamId}/${descriptor.name}, which is not this workflow (${workflowId.slice(0, 200)})`);
  }
  const problem = deliveryProblem(initialMessage);
  if (problem) throw invalid(workflow, `initialMessage: ${problem}`);
  if (conversationProblem(seed)) throw invalid(workflow, `seed: ${conversationProblem(seed)}`);
  if (jsonBytes(seed) > CARRIED_CONVERSATION_MAX_BYTES) throw invalid(workflow, `seed is over the ${CARRIED_CONVERSATION_MAX_BYTES}-byte conversation budget`);
  if (jsonBytes(input) > PAYLOAD_MAX_BYTES) throw invalid(workflow, `the input is over the ${PAYLOAD_MAX_BYTES}-byte payload budget`);
  return input as TeammateRunInput;
}

/** Entry contents must be plain JSON (inspected, never rebuilt). */
function conversationProblem(entries: readonly unknown[]): string | null {
  for (const [index, entry] of entries.entries()) {
    const problem = jsonProblem(entry);
    if (problem) return `entry ${index}: ${problem}`;
  }
  return null;
}
