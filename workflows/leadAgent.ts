/**
 * The Lead as an agent: turns over its inbox (the operator's prompt and follow-ups, teammates'
 * messages), its Team tools executed inside this workflow through the same operations the Update
 * handlers use, work tools on the checkout's task queue, ordinary subagents in the default profile.
 * After a turn ends with a reply, the Lead waits for required work (busy teammates, unread
 * messages) and is told about open tasks before its final answer is accepted.
 */
import { ApplicationFailure, CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { dispatchByName, runSubagentToolCall, runTeamToolCall } from '../shared/agent/dispatch';
import { runAgentTurn } from '../shared/agent/loop';
import { identityText } from '../shared/agent/policy';
import { policyOf, toolsetOf } from '../shared/agent/profiles';
import type { TeamToolContext } from '../shared/agent/teamTools';
import * as defs from '../shared/definitions';
import type { AgentStatus, Attributed } from '../shared/definitions';
import { takePending } from '../shared/inbox';
import type { ToolCall } from '../shared/model';
import type { TaskCommandKind } from '../shared/team';
import { LEAD, teamView } from '../shared/team';
import { recordEdge } from '../shared/teamEdges';
import { MAX_STATUS_TEXT_LENGTH } from '../shared/limits';
import { models, runWorkToolCall, workTools } from './agentActivities';
import type { LeadAgentState } from './leadAgentState';
import { MAX_COMPLETION_NUDGES } from './leadAgentState';
import type { LeadOperations } from './leadOperations';
import { LeadSubagents } from './leadSubagents';
import type { TeamLeadRun } from './teamLeadRun';
import { busyMembers } from './teamLeadRun';

/** How long the Lead waits for busy teammates before it is given a turn to decide what to do. */
export const REQUIRED_WORK_WAIT_MS = 30 * 60 * 1000;

const TASK_UPDATES: Record<string, TaskCommandKind> = {
  createTask: 'createTask',
  editTask: 'editTask',
  claimTask: 'claimTask',
  assignTask: 'assignTask',
  releaseTask: 'releaseTask',
  transitionTask: 'transitionTask',
  deleteTask: 'deleteTask',
};

/** Where a yielded Lead turn goes on in the next run. */
export interface ResumeTurn {
  turn: number;
  step: number;
}

export interface LeadAgentDeps {
  lead: TeamLeadRun;
  agent: LeadAgentState;
  ops: LeadOperations;
  teamId: string;
  now: () => string;
  closing: () => boolean;
  /** True when the run is rolling over: the Lead's turn stops at its next step boundary and goes on in the next run. */
  yieldForRollover: () => boolean;
}

export class LeadAgentRunner {
  private turnScope: CancellationScope | undefined;

  /** The ordinary subagents this Lead started (default profile). */
  readonly subagents: LeadSubagents;

  constructor(private readonly deps: LeadAgentDeps) {
    this.subagents = new LeadSubagents(deps);
  }

  private setStatus(status: AgentStatus): void {
    const { agent, lead } = this.deps;
    if (agent.status === status) return;
    agent.status = status;
    // An edge like any member's status change: waitForEdge wakes, so callers follow the Lead without polling.
    lead.edges = recordEdge(lead.edges, 'status', `${LEAD}:${status}`, this.deps.now());
  }

  /** Disposal cancels a turn in progress. */
  cancelTurn(): void {
    this.turnScope?.cancel();
  }

  /** The Lead's own Team tools: attributed to the Lead, run through the same operations as Updates. */
  private teamContext(opId: string): TeamToolContext {
    const { lead, ops, now } = this.deps;
    return {
      caller: LEAD,
      update: async <Ret, Req extends Attributed>(definition: UpdateDefinition<Ret, [Req]>, body: Omit<Req, 'caller'>): Promise<Ret> => {
        const request = { ...body, caller: LEAD };
        const taskKind = TASK_UPDATES[definition.name];
        if (taskKind) return lead.applyTaskCommand(taskKind, request, opId, now()) as Ret;
        switch (definition.name) {
          case defs.spawnTeammateUpdate.name:
            return (await ops.spawn(request, opId)) as Ret;
          case defs.sendMessageUpdate.name:
            return (await ops.send(request, opId)) as Ret;
          case defs.interruptTeammateUpdate.name:
            return (await ops.interrupt(request)) as Ret;
          case defs.waitForEdgeUpdate.name:
            return (await ops.wait(request)) as Ret;
          case defs.listTasksUpdate.name:
            lead.validateRead(request, false);
            return lead.listTasks() as Ret;
          case defs.readTaskUpdate.name:
            lead.validateReadTask(request, false);
            return lead.readTask(request) as Ret;
          default:
            throw ApplicationFailure.create({ type: 'UnknownTool', message: `the Lead has no operation ${definition.name}`, nonRetryable: true });
        }
      },
      roster: () => Promise.resolve({ view: teamView(lead.state), liveStatus: lead.liveStatus }),
    };
  }

  /** One turn over the Lead's inbox, or the rest of a turn the previous run yielded. */
  private async turn(resume: ResumeTurn | null): Promise<'done' | 'failed' | 'yielded'> {
    const { agent, lead, teamId } = this.deps;
    const toolset = toolsetOf(agent.profile);
    const checkout = workTools(agent.options?.checkoutTaskQueue ?? workflowInfo().taskQueue);
    let turn: number;
    if (resume) {
      turn = resume.turn;
      agent.currentTurn = turn;
    } else {
      const { inbox, messages } = takePending(lead.leadInbox);
      lead.leadInbox = inbox;
      turn = agent.beginTurn(messages, teamId);
    }
    this.setStatus('running');
    agent.lastError = null;
    this.turnScope = new CancellationScope();
    try {
      const result = await this.turnScope.run(() =>
        runAgentTurn({
          conversation: agent.conversation,
          turn,
          teamId,
          ...(resume ? { firstStep: resume.step } : {}),
          shouldYield: this.deps.yieldForRollover,
          system: `${policyOf(toolset)}\n\n${identityText({ teamId, name: LEAD, role: 'lead', cwd: agent.cwd })}`,
          opIdPrefix: `${teamId}/lead/turn-${turn}`,
          callModel: (chat) => models.callModel({ model: agent.options?.model ?? null, toolset, messages: chat }),
          dispatch: (call: ToolCall, opId: string) =>
            dispatchByName(toolset, call, opId, {
              work: (c) => runWorkToolCall(checkout, c, agent),
              team: (c, id) => runTeamToolCall(c, this.teamContext(id)),
              subagent: (c, id) => runSubagentToolCall(c, this.subagents.context(id)),
            }),
        }),
      );
      if (result.yieldedAtStep !== undefined) {
        agent.resumeTurn = { turn, step: result.yieldedAtStep };
        return 'yielded';
      }
      return 'done';
    } catch (error) {
      if (isCancellation(error)) {
        agent.note({ event: 'turn cancelled (the Team is being disposed)' });
        return 'done';
      }
      const message = failureMessage(error);
      agent.note({ event: 'turn failed', error: message.slice(0, MAX_STATUS_TEXT_LENGTH) });
      agent.lastError = `${message.slice(0, MAX_STATUS_TEXT_LENGTH)}; fix the cause (e.g. the worker's model configuration), then prompt the Lead again`;
      this.setStatus('failed');
      return 'failed';
    } finally {
      this.turnScope = undefined;
      agent.currentTurn = null;
    }
  }

  /** Turns until the Team closes; each reply is held back while required work remains. */
  async run(): Promise<void> {
    const { agent, lead, closing } = this.deps;
    const hasMail = (): boolean => lead.leadInbox.pending.length > 0;
    // A run that rolled over while the Lead waited for required work goes on waiting.
    let waitingForWork = agent.status === 'waiting' && agent.resumeTurn === null;
    for (;;) {
      if (!waitingForWork) {
        // A turn the previous run yielded at a rollover goes on first, before any new mail.
        const resume = agent.resumeTurn;
        agent.resumeTurn = null;
        if (!resume) {
          await condition(() => closing() || hasMail());
          if (closing()) return;
        }
        const outcome = await this.turn(resume);
        if (outcome === 'yielded' || closing()) return;
        if (outcome === 'failed') continue; // the next message (a new prompt) starts another turn
      }
      waitingForWork = false;
      // Required work before the final answer.
      for (;;) {
        if (hasMail()) break; // new messages: another turn
        const busy = busyMembers(lead);
        if (busy.length > 0) {
          this.setStatus('waiting');
          const woke = await condition(() => closing() || hasMail() || busyMembers(lead).length === 0, REQUIRED_WORK_WAIT_MS);
          if (closing()) return;
          if (!woke) {
            this.nudge({ event: 'teammates are still busy', busy: busyMembers(lead), waitedMs: REQUIRED_WORK_WAIT_MS });
            break;
          }
          continue;
        }
        const open = Object.values(lead.state.tasks)
          .filter((t) => !t.deleted && (t.status === 'pending' || t.status === 'in_progress'))
          .map((t) => t.id);
        if (open.length > 0 && agent.nudges < MAX_COMPLETION_NUDGES) {
          agent.nudges += 1;
          this.nudge({ event: 'work remains before your final answer', openTasks: open, hint: 'check the board (list_tasks) and your messages; finish, reassign or cancel these tasks, or answer again to finish anyway' });
          break;
        }
        agent.finalAnswer = agent.lastReply();
        agent.openTasksAtAnswer = open;
        this.setStatus('answered');
        break;
      }
    }
  }

  /** A runtime note that starts another turn (delivered through the Lead's own inbox). */
  private nudge(content: defs.ConversationEntry['content']): void {
    const { lead, agent, now } = this.deps;
    lead.receiveForLead({ messageId: `${this.deps.teamId}/lead/nudge-${agent.turns}-${agent.nudges}`, from: LEAD, content, sentAt: now() }, now());
  }
}

/** The innermost message of an activity failure chain (the model's typed error, not "Activity task failed"). */
function failureMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  while (current instanceof Error) {
    message = current.message || message;
    current = current.cause;
  }
  return message;
}
