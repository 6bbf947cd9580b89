import { z } from 'zod';
import { TASK_STATUSES } from './vocabulary';

/**
 * Zod schemas for every Team command body. These are the wire payloads of the Lead's Updates
 * (plus the runtime-supplied `caller`, see shared/contract/lead.ts). Strict: unknown keys are errors,
 * so a typo never silently drops a field.
 */
export const MAX_SUBJECT_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 20_000;
export const MAX_DEPENDENCIES = 100;
export const MAX_WRITE_SCOPES = 50;

export const taskIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const revisionSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const subject = z.string().trim().min(1).max(MAX_SUBJECT_LENGTH);
const description = z.string().max(MAX_DESCRIPTION_LENGTH);
const dependencies = z.array(taskIdSchema).max(MAX_DEPENDENCIES);
const writeScopes = z.array(z.string().max(500)).max(MAX_WRITE_SCOPES);
/** A member name (or "lead") as the wire takes it: the caller, a send target, an owner. The roster's own rules for teammate names apply when it decides. */
export const memberNameSchema = z.string().min(1).max(100);

export const createTaskBody = z.strictObject({
  subject,
  description: description.default(''),
  dependencies: dependencies.default([]),
  writeScopes: writeScopes.default([]),
});
export const editTaskBody = z
  .strictObject({
    taskId: taskIdSchema,
    expectedRevision: revisionSchema,
    subject: subject.optional(),
    description: description.optional(),
    dependencies: dependencies.optional(),
    writeScopes: writeScopes.optional(),
  })
  .refine((b) => b.subject !== undefined || b.description !== undefined || b.dependencies !== undefined || b.writeScopes !== undefined, {
    message: 'editTask needs at least one of subject, description, dependencies, writeScopes',
  });
export const claimTaskBody = z.strictObject({ taskId: taskIdSchema, expectedRevision: revisionSchema });
export const assignTaskBody = z.strictObject({ taskId: taskIdSchema, expectedRevision: revisionSchema, owner: memberNameSchema.nullable() });
export const releaseTaskBody = z.strictObject({ taskId: taskIdSchema, expectedRevision: revisionSchema });
export const transitionTaskBody = z.strictObject({ taskId: taskIdSchema, expectedRevision: revisionSchema, status: z.enum(TASK_STATUSES) });
export const deleteTaskBody = z.strictObject({ taskId: taskIdSchema, expectedRevision: revisionSchema });

export type CreateTaskBody = z.infer<typeof createTaskBody>;
export type EditTaskBody = z.infer<typeof editTaskBody>;
export type ClaimTaskBody = z.infer<typeof claimTaskBody>;
export type AssignTaskBody = z.infer<typeof assignTaskBody>;
export type ReleaseTaskBody = z.infer<typeof releaseTaskBody>;
export type TransitionTaskBody = z.infer<typeof transitionTaskBody>;
export type DeleteTaskBody = z.infer<typeof deleteTaskBody>;

/** The task commands the core decides, keyed by the Update name that carries them. */
export const TASK_COMMAND_BODIES = {
  createTask: createTaskBody,
  editTask: editTaskBody,
  claimTask: claimTaskBody,
  assignTask: assignTaskBody,
  releaseTask: releaseTaskBody,
  transitionTask: transitionTaskBody,
  deleteTask: deleteTaskBody,
} as const;

export type TaskCommandKind = keyof typeof TASK_COMMAND_BODIES;

export type TaskCommand =
  | ({ kind: 'createTask' } & CreateTaskBody)
  | ({ kind: 'editTask' } & EditTaskBody)
  | ({ kind: 'claimTask' } & ClaimTaskBody)
  | ({ kind: 'assignTask' } & AssignTaskBody)
  | ({ kind: 'releaseTask' } & ReleaseTaskBody)
  | ({ kind: 'transitionTask' } & TransitionTaskBody)
  | ({ kind: 'deleteTask' } & DeleteTaskBody);

/** Who is acting and when. Supplied by the runtime (workflow clock, attributed caller), never by a model. */
export interface CommandContext {
  caller: string;
  now: string;
}
