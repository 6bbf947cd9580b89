import type { TaskSnapshot } from './team';

/**
 * Every way a Team command can be refused. The `type` strings are public API: they become the
 * `ApplicationFailure.type` a client sees, so callers can branch on them.
 */
export const TEAM_REJECTION_TYPES = [
  'InvalidTeamCommand',
  'NotATeamMember',
  'LeadOnly',
  'TaskNotFound',
  'TaskDeleted',
  'TaskRevisionConflict',
  'TaskNotReady',
  'TaskAuthorityViolation',
  'InvalidTaskTransition',
  'InvalidTaskDependency',
  'TaskDependencyCycle',
  'TaskHasDependents',
  'InvalidWriteScope',
  'TaskIdsExhausted',
  'UnknownAssignee',
  'InvalidMemberName',
  'MemberNameTaken',
  'RosterFull',
  'TeamAdmissionClosed',
  'UnknownMember',
  'InvalidMemberTransition',
  'ProvisioningConflict',
  'ReservedIdTaken',
  'BoardFull',
  'PayloadTooLarge',
  'InboxFull',
  'AgentNotEnabled',
  'ModelNotAllowed',
  'BudgetUnpriced',
  'OperatorOnly',
  'NoTeamBudget',
] as const;

export type TeamRejectionType = (typeof TEAM_REJECTION_TYPES)[number];

export function isTeamRejectionType(type: unknown): type is TeamRejectionType {
  return typeof type === 'string' && (TEAM_REJECTION_TYPES as readonly string[]).includes(type);
}

export interface TeamRejection {
  type: TeamRejectionType;
  /** A sentence a person (or a model) can act on: what was wrong and what to do next. */
  message: string;
  /** On TaskRevisionConflict and other task rejections: the current snapshot, so the caller can rebase. */
  currentTask?: TaskSnapshot;
  /** On TaskDependencyCycle: the task ids that would form the cycle, first id repeated at the end. */
  cycle?: number[];
}

export function reject(type: TeamRejectionType, message: string, extra: Omit<TeamRejection, 'type' | 'message'> = {}): TeamRejection {
  return { type, message, ...extra };
}
