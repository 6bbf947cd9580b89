import type { MemberContext, TaskStatus } from '../contract/vocabulary';

/**
 * The closed union of everything that changes Team state. Each event is applied by `apply` and
 * each task event raises that task's revision by exactly one.
 */
export type TeamEvent =
  | {
      type: 'taskCreated';
      taskId: number;
      subject: string;
      description: string;
      dependencies: number[];
      writeScopes: string[];
      createdBy: string;
      at: string;
    }
  | {
      type: 'taskEdited';
      taskId: number;
      changes: { subject?: string; description?: string; dependencies?: number[]; writeScopes?: string[] };
      at: string;
    }
  | { type: 'taskClaimed'; taskId: number; owner: string; at: string }
  | { type: 'taskAssigned'; taskId: number; owner: string; at: string }
  | { type: 'taskReleased'; taskId: number; at: string }
  | { type: 'taskStatusChanged'; taskId: number; status: TaskStatus; at: string }
  | { type: 'taskDeleted'; taskId: number; at: string }
  | { type: 'memberProvisioning'; name: string; context: MemberContext; workflowId: string; model: string | null; at: string }
  | { type: 'memberActivated'; name: string; at: string }
  | { type: 'memberFailed'; name: string; reason: string; at: string }
  | { type: 'memberStopped'; name: string; at: string }
  | { type: 'admissionClosed'; at: string };

export type TeamEventType = TeamEvent['type'];
