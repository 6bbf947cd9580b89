/**
 * What a TeamClient call does with an error the Temporal SDK threw (issue 23): send the same call
 * again within its deadline (an Update with the same update id, which the server and the Lead
 * apply at most once), or throw a typed error whose `type` is stable and whose message names the
 * next step. Pure: no I/O, no clock; `TeamCalls.retrying` (client/teamCalls.ts) acts on the verdict.
 *
 * The SDK throws the server's gRPC errors as a ServiceError whose `cause` is the grpc-js error
 * (`code`, `details`, `metadata`), except NOT_FOUND (WorkflowNotFoundError) and an Update call's
 * DEADLINE_EXCEEDED or CANCELLED (WorkflowUpdateRPCTimeoutOrCancelledError); see `rethrowGrpcError`
 * and `rethrowUpdateGrpcError` in @temporalio/client's workflow-client.ts. Server messages quoted
 * here are from go.temporal.io/server v1.29.1.
 */
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, isGrpcServiceError } from '@temporalio/client';
import { getGrpcStatusDetails, trimGrpcTypeUrl } from '@temporalio/client/lib/helpers';
import { ApplicationFailure } from '@temporalio/common';
import { TEAM_ROLLING_OVER } from '../shared/contract/failures';
import { DeadlineReached, isDeadlineError } from './deadlines';

/** A TeamClient call met a server error it does not retry; the message names the gRPC code, the server's words and the next step. */
export const TEAM_CALL_FAILED = 'TeamCallFailed';

/** The grpc-js error the SDK wraps (`code`, `details`, `metadata`); its type, without depending on @grpc/grpc-js. */
export type GrpcServiceError = Parameters<typeof getGrpcStatusDetails>[0];

/** gRPC status names by code (the standard codes, named as @grpc/grpc-js's `status` enum names them). */
export const GRPC_CODE_NAMES: readonly string[] = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const FAILED_PRECONDITION = 9;
const UNIMPLEMENTED = 12;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;

/** The detail the server attaches to FAILED_PRECONDITION when the workflow cannot take the call yet (serviceerror.WorkflowNotReady). */
const WORKFLOW_NOT_READY_DETAIL = 'temporal.api.errordetails.v1.WorkflowNotReadyFailure';
/** The server's WorkflowNotReady messages for Updates and queries, for a status whose details did not arrive. */
const WORKFLOW_NOT_READY_TEXT = /Workflow Task in failed state|unexpected workflow task failure/i;
/** RESOURCE_EXHAUSTED that no retry can cure: a message over the gRPC limit (either side). */
const MESSAGE_TOO_LARGE_TEXT = /message larger than max/i;
/** The in-flight Update payload limit (history.maxInFlightUpdatePayloads), with its size. */
const IN_FLIGHT_BYTES_TEXT = /total payload size of in-flight updates has been reached \((\d+) bytes\)/i;

export interface CallFacts {
  teamId: string;
  /** The Update or query name (or the client operation). */
  operation: string;
  kind: 'update' | 'query';
  updateId?: string;
  /** The JSON size of the Update's request, when known: one that alone is over the in-flight byte limit never fits. */
  requestBytes?: number;
}

export type CallErrorVerdict =
  /**
   * Send the same call again (an Update with the same update id) after `retryDelayMs`, within the
   * deadline. `pace`: 'backoff' when the server said it is busy. `onlyWhileRunning`: retry only
   * while the Team's Lead still runs (the error can mean its run closed under the call).
   */
  | { action: 'retry'; why: string; pace: 'quick' | 'backoff'; onlyWhileRunning: boolean }
  /** Throw `error`: a typed error with a stable `type`, or one the client documents as thrown as is. */
  | { action: 'typed'; error: Error };

export interface CallFailedFacts {
  teamId: string;
  operation: string;
  updateId?: string;
  /** The gRPC status code, or null when the SDK's error carried none (the request never reached the server). */
  code: number | null;
  /** Its name (`RESOURCE_EXHAUSTED`, …), or `NO_STATUS`. */
  codeName: string;
  /** What the server (or the gRPC layer) said. */
  serverMessage: string;
}

/** A TeamClient call met a server error that retrying cannot fix (or that the client does not know); `cause` is the SDK's error. */
export class TeamCallFailed extends ApplicationFailure {
  readonly teamId: string;
  readonly operation: string;
  readonly updateId: string | undefined;
  readonly code: number | null;
  readonly codeName: string;
  readonly serverMessage: string;

  constructor(facts: CallFailedFacts, cause?: Error) {
    super(callFailedMessage(facts), TEAM_CALL_FAILED, true, [facts], cause);
    this.teamId = facts.teamId;
    this.operation = facts.operation;
    this.updateId = facts.updateId;
    this.code = facts.code;
    this.codeName = facts.codeName;
    this.serverMessage = facts.serverMessage;
  }
}
Object.defineProperty(TeamCallFailed.prototype, 'name', { value: TEAM_CALL_FAILED, enumerable: true });

/** The gRPC error in `error` or its causes (the SDK wraps it in a ServiceError), or null. */
export function grpcErrorOf(error: unknown): GrpcServiceError | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (isGrpcServiceError(current)) return current;
  }
  return null;
}

/** The type names of the details in a gRPC error's status (`temporal.api.errordetails.v1.…`). */
export function grpcDetailTypes(grpc: GrpcServiceError): string[] {
  try {
    return (getGrpcStatusDetails(grpc) ?? []).map((detail) => trimGrpcTypeUrl(detail.type_url));
  } catch {
    return [];
  }
}

export function classifyCallError(error: unknown, call: CallFacts): CallErrorVerdict {
  if (error instanceof DeadlineReached) return typed(error);
  if (error instanceof WorkflowUpdateFailedError) {
    // The Lead (or the server) answered the Update with a failure: a typed rejection, thrown as the Lead raised it.
    const failure = error.cause instanceof ApplicationFailure ? error.cause : null;
    if (failure?.type === TEAM_ROLLING_OVER) return retry(`the Lead is continuing as new (${TEAM_ROLLING_OVER})`, 'quick');
    return typed(failure ?? error);
  }
  if (error instanceof ApplicationFailure) return typed(error);
  const update = call.kind === 'update';
  // A deadline error this early is the server's (the caller's own deadline is handled before): an Update's run may have closed under it.
  if (isDeadlineError(error)) return retry(`the server ended the call before its deadline (${innerText(error)})`, 'quick', update);
  if (error instanceof WorkflowNotFoundError) {
    // A query of a missing Team says so (TeamClient.health and forkRoot rely on it); an Update's NOT_FOUND can be its run closing under it.
    return update ? retry(`the Lead's run closed under the Update (NOT_FOUND: ${error.message})`, 'quick', true) : typed(error);
  }
  const grpc = grpcErrorOf(error);
  if (!grpc) {
    if (!(error instanceof ServiceError)) return typed(error instanceof Error ? error : new Error(String(error)));
    return typed(new TeamCallFailed({ ...facts(call), code: null, codeName: 'NO_STATUS', serverMessage: innerText(error) }, error));
  }
  const code = Number(grpc.code);
  const said = `${codeName(code)}: ${grpc.details}`;
  if (code === FAILED_PRECONDITION && (grpcDetailTypes(grpc).includes(WORKFLOW_NOT_READY_DETAIL) || WORKFLOW_NOT_READY_TEXT.test(grpc.details))) {
    return retry(`the Lead's workflow task failed, so the server applied nothing of the call (${said})`, 'quick');
  }
  if (code === RESOURCE_EXHAUSTED && !neverFits(grpc.details, call.requestBytes)) return retry(`the server is busy (${said})`, 'backoff');
  if (code === UNAVAILABLE) return retry(`the server is unavailable (${said})`, 'backoff');
  return typed(new TeamCallFailed({ ...facts(call), code, codeName: codeName(code), serverMessage: grpc.details }, error instanceof Error ? error : undefined));
}

/**
 * How long to wait before attempt `attempt + 1` (attempts count from 1). 'quick': 50 ms more per
 * attempt up to 1 s (a rollover, a failed workflow task). 'backoff': doubling from 250 ms up to
 * 2 s, ±20 % jitter, so callers the server turned away do not come back all at once.
 */
export function retryDelayMs(pace: 'quick' | 'backoff', attempt: number, random: () => number = Math.random): number {
  if (pace === 'quick') return Math.min(50 * attempt, 1_000);
  const base = Math.min(250 * 2 ** (attempt - 1), 2_000);
  return Math.round(base * (0.8 + 0.4 * random()));
}

export function codeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? `CODE_${code}`;
}

function retry(why: string, pace: 'quick' | 'backoff', onlyWhileRunning = false): CallErrorVerdict {
  return { action: 'retry', why, pace, onlyWhileRunning };
}

function typed(error: Error): CallErrorVerdict {
  return { action: 'typed', error };
}

function facts(call: CallFacts): Pick<CallFailedFacts, 'teamId' | 'operation' | 'updateId'> {
  return { teamId: call.teamId, operation: call.operation, ...(call.updateId !== undefined ? { updateId: call.updateId } : {}) };
}

/** RESOURCE_EXHAUSTED that waiting cannot cure: a message over the gRPC size limit, or a request alone over the in-flight byte limit. */
function neverFits(details: string, requestBytes: number | undefined): boolean {
  if (MESSAGE_TOO_LARGE_TEXT.test(details)) return true;
  const limit = inFlightByteLimit(details);
  return limit !== null && requestBytes !== undefined && requestBytes >= limit;
}

/** The byte limit a RESOURCE_EXHAUSTED refusal at the in-flight Update payload limit names, or null for any other message. */
export function inFlightByteLimit(details: string): number | null {
  const limit = IN_FLIGHT_BYTES_TEXT.exec(details);
  return limit === null ? null : Number(limit[1]);
}

/** The error's message and its cause's (the SDK's wrapper says little: "Workflow Update failed"). */
function innerText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error && error.cause.message ? `${error.message}: ${error.cause.message}` : error.message;
}

function callFailedMessage(facts: CallFailedFacts): string {
  const what = facts.updateId !== undefined ? `${facts.operation} (update id ${facts.updateId})` : facts.operation;
  const said = /[.!?]$/.test(facts.serverMessage) ? facts.serverMessage : `${facts.serverMessage}.`;
  const head = `Team ${facts.teamId}: ${what} failed: ${facts.code === null ? 'the client' : 'the server'} answered ${facts.codeName}: ${said}`;
  return `${head} ${nextStep(facts)}`;
}

function nextStep(facts: CallFailedFacts): string {
  if (facts.code === RESOURCE_EXHAUSTED) {
    return 'The request (or its answer) is larger than the server accepts, so no retry can fit it: send a smaller one (docs/semantics.md, size limits).';
  }
  if (facts.code === INVALID_ARGUMENT) return 'The server refused the request itself: fix the request before sending it again.';
  if (facts.code === PERMISSION_DENIED || facts.code === UNAUTHENTICATED) {
    return "Check the client's credentials (TEMPORAL_API_KEY, mTLS certificates) and its permissions on the namespace.";
  }
  if (facts.code === UNIMPLEMENTED) return 'The server does not support this call: upgrade the Temporal server.';
  const retryIt =
    facts.updateId !== undefined ? `retry with the same update id (${facts.updateId}), which is applied at most once` : 'retry once the cause is fixed';
  return `The client does not know how to recover from this: check \`npm run cli -- status ${facts.teamId}\` and the server's logs, then ${retryIt}.`;
}
