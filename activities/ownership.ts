/**
 * The server's side of the ownership check (shared/contract/reservedIds.ts): the workflow at a
 * reserved id, described raw (no memo decoding, so a holder with an undecodable memo is still
 * described), and whether it is provably a given Lead's own child. Every activity that cancels,
 * terminates or signals a member's id asks this first: the Lead's recovery and stops
 * (activities/index.ts) and the orphan reaper (activities/reaper.ts).
 */
import { type Client, isGrpcServiceError } from '@temporalio/client';
import { notOwnChildProblem, type ReservedIdHolder } from '../shared/contract/reservedIds';
import { keywordAttribute } from './searchAttributeValue';

/** gRPC NOT_FOUND: no workflow with that id (or run). */
const GRPC_NOT_FOUND = 5;

export type RawDescription = Awaited<ReturnType<Client['workflowService']['describeWorkflowExecution']>>;

export type Ownership =
  | { kind: 'absent' }
  /** Provably the Lead's own child: the caller may stop it. */
  | { kind: 'own'; raw: RawDescription; holder: ReservedIdHolder }
  /** Anything else: left untouched; `problem` says why it is not the Lead's. */
  | { kind: 'foreign'; raw: RawDescription; holder: ReservedIdHolder; problem: string };

/** The facts the ownership check reads, from a raw description. */
export function holderOf(workflowId: string, raw: RawDescription): ReservedIdHolder {
  const info = raw.workflowExecutionInfo;
  return {
    workflowId,
    workflowType: info?.type?.name ?? null,
    runId: info?.execution?.runId ?? null,
    parentWorkflowId: info?.parentExecution?.workflowId || null,
    agentTeamId: keywordAttribute(info?.searchAttributes?.indexedFields, 'AgentTeamId'),
  };
}

/** Describes the workflow at `workflowId` (its `runId` run, else the latest) and judges whether it is `leadId`'s own child. */
export async function ownershipOf(client: Client, workflowId: string, leadId: string, runId?: string): Promise<Ownership> {
  let raw: RawDescription;
  try {
    raw = await client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId !== undefined ? { runId } : {}) },
    });
  } catch (error) {
    if (isGrpcServiceError(error) && Number(error.code) === GRPC_NOT_FOUND) return { kind: 'absent' };
    throw error;
  }
  const holder = holderOf(workflowId, raw);
  const problem = notOwnChildProblem(holder, leadId);
  return problem === null ? { kind: 'own', raw, holder } : { kind: 'foreign', raw, holder, problem };
}
