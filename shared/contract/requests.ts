/**
 * Zod schemas for the wire bodies of the Lead's roster, mailbox, prompt, interrupt, wait and read
 * Updates (the task command bodies are in ./taskCommands.ts). One home for each rule: the Lead parses
 * its Updates with these, and the model-facing Team tools derive their argument schemas from them
 * (without `caller`, and `messageId`, which the runtime supplies). Strict: unknown keys are errors.
 * Pure: bundled into workflow code.
 */
import { budgetLimitsSchema } from './budgets';
import { z } from 'zod';
import { MAX_ID_LENGTH } from './limits';
import { memberNameSchema } from './taskCommands';
import { EDGE_KINDS, memberContextSchema, modelNameSchema } from './vocabulary';

/** listTasksPage: a page's default size in bytes (its tasks' JSON; the paging is shared/team/boardPage.ts). */
export const LIST_PAGE_DEFAULT_BYTES = 256 * 1024;
/** The least a caller may ask for: one page always holds at least one task, whatever its size. */
export const LIST_PAGE_MIN_BYTES = 1024;
/** The most a caller may ask for: half a completion's size limit, so two pages share one. */
export const LIST_PAGE_MAX_BYTES = 750_000;

/** The longest a wait_agent / waitForEdge may block: one hour. */
export const MAX_WAIT_MS = 3_600_000;
/** The longest follow-up prompt to the Lead agent, in characters after trimming. */
export const MAX_PROMPT_LENGTH = 100_000;

const caller = memberNameSchema;
const messageId = z.string().min(1).max(MAX_ID_LENGTH);

/** Updates that carry nothing but the attributed caller (listTasks, readLeadInbox, disposeTeam, ...). */
export const callerOnlySchema = z.strictObject({ caller });
export const readTaskRequestSchema = z.strictObject({ caller, taskId: z.number().int().positive() });
/** A page of the board: the tasks after task id `after` (0: from the start), within `maxBytes` of JSON. */
export const listTasksPageRequestSchema = z.strictObject({
  caller,
  after: z.number().int().min(0).default(0),
  maxBytes: z.number().int().min(LIST_PAGE_MIN_BYTES).max(LIST_PAGE_MAX_BYTES).default(LIST_PAGE_DEFAULT_BYTES),
});
export type ListTasksPageRequest = z.input<typeof listTasksPageRequestSchema>;
/** `message` is only typed here; the Lead checks it is JSON within the message size limit from the original input. */
export const spawnRequestSchema = z.strictObject({
  caller,
  name: memberNameSchema,
  context: memberContextSchema.default('fresh'),
  message: z.unknown(),
  model: modelNameSchema.nullable().default(null),
});
/** `content` is only typed here; the Lead checks it is JSON within the message size limit from the original input. */
export const sendEnvelopeSchema = z.strictObject({ caller, to: memberNameSchema, content: z.unknown(), messageId: messageId.optional() });
export const promptRequestSchema = z.strictObject({ caller, content: z.string().trim().min(1).max(MAX_PROMPT_LENGTH), messageId: messageId.optional() });
export const interruptRequestSchema = z.strictObject({ caller, name: memberNameSchema });
/** `name`: a teammate, or "lead" for the Lead agent's own budget; `budget` replaces its limits (an absent cap is no cap). */
export const setBudgetRequestSchema = z.strictObject({ caller, name: memberNameSchema, budget: budgetLimitsSchema });
export const waitRequestSchema = z.strictObject({
  caller,
  timeoutMs: z.number().int().min(1).max(MAX_WAIT_MS),
  kinds: z.array(z.enum(EDGE_KINDS)).min(1).optional(),
  afterSeq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
