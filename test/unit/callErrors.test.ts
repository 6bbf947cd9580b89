/**
 * The call-error classifier (client/callErrors.ts) over errors shaped exactly as the SDK throws
 * them: each gRPC error is made by grpc-js's own `callErrorFromStatus` (what a failed unary call
 * hands the SDK), with the status details the server attaches (google.rpc.Status, encoded by the
 * SDK's proto package), and then passed through the SDK's own `rethrowUpdateGrpcError` /
 * `rethrowGrpcError` (what executeUpdate, startUpdate and query call on failure). The messages are
 * the server's (go.temporal.io/server v1.29.1); test/integration/callErrors.test.ts shows the real
 * server sending them.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { callErrorFromStatus } from '@grpc/grpc-js/build/src/call';
import {
  ServiceError,
  WorkflowClient,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  isGrpcServiceError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { google, temporal } from '@temporalio/proto';
import {
  GRPC_CODE_NAMES,
  TEAM_CALL_FAILED,
  TeamCallFailed,
  classifyCallError,
  grpcDetailTypes,
  grpcErrorOf,
  retryDelayMs,
  type CallErrorVerdict,
  type CallFacts,
} from '../../client/callErrors';
import { DeadlineReached } from '../../client/deadlines';

const UPDATE: CallFacts = { teamId: 'team-1', operation: 'createTask', kind: 'update', updateId: 'update-1', requestBytes: 100 };
const QUERY: CallFacts = { teamId: 'team-1', operation: 'getTeamView', kind: 'query' };

const errordetails = temporal.api.errordetails.v1;
type Detail = { name: string; value: Uint8Array };
const workflowNotReady: Detail = { name: 'WorkflowNotReadyFailure', value: errordetails.WorkflowNotReadyFailure.encode({}).finish() };
const resourceExhausted = (cause: temporal.api.enums.v1.ResourceExhaustedCause): Detail => ({
  name: 'ResourceExhaustedFailure',
  value: errordetails.ResourceExhaustedFailure.encode({
    cause,
    scope: temporal.api.enums.v1.ResourceExhaustedScope.RESOURCE_EXHAUSTED_SCOPE_NAMESPACE,
  }).finish(),
});
const { RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT, RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW, RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT } =
  temporal.api.enums.v1.ResourceExhaustedCause;

/** A failed unary call's error as grpc-js makes it, with the status details the Temporal server attaches in `grpc-status-details-bin`. */
function grpcError(code: status, details: string, detail?: Detail): Error {
  const metadata = new Metadata();
  if (detail) {
    const encoded = google.rpc.Status.encode({
      code,
      message: details,
      details: [{ type_url: `type.googleapis.com/temporal.api.errordetails.v1.${detail.name}`, value: detail.value }],
    }).finish();
    metadata.set('grpc-status-details-bin', Buffer.from(encoded));
  }
  return callErrorFromStatus({ code, details, metadata }, 'for call at (unit test)');
}

/** The SDK's own error mapping, run on a WorkflowClient prototype (no connection is made). */
class SdkErrors extends WorkflowClient {
  private static sdk(): SdkErrors {
    return Object.create(SdkErrors.prototype) as SdkErrors;
  }
  /** What executeUpdate / startUpdate / the Update result poll throw for `error` (`rethrowUpdateGrpcError`). */
  static fromUpdate(error: unknown): Error {
    return thrownBy(() => SdkErrors.sdk().rethrowUpdateGrpcError(error, 'Workflow Update failed', { workflowId: 'team-1' }));
  }
  /** What query throws for `error` (after its INVALID_ARGUMENT case: `rethrowGrpcError`). */
  static fromQuery(error: unknown): Error {
    return thrownBy(() => SdkErrors.sdk().rethrowGrpcError(error, 'Failed to query Workflow', { workflowId: 'team-1' }));
  }
}

function thrownBy(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the SDK to throw');
}

function retried(verdict: CallErrorVerdict): Extract<CallErrorVerdict, { action: 'retry' }> {
  if (verdict.action !== 'retry') throw new Error(`expected a retry, got ${verdict.error.name}: ${verdict.error.message}`);
  return verdict;
}

function typedError(verdict: CallErrorVerdict): Error {
  if (verdict.action !== 'typed') throw new Error(`expected a typed error, got a retry (${verdict.why})`);
  return verdict.error;
}

test("the shapes are the SDK's: a ServiceError caused by the grpc-js error, NOT_FOUND as WorkflowNotFoundError, an Update's deadline its own class", () => {
  const failed = SdkErrors.fromUpdate(grpcError(status.FAILED_PRECONDITION, 'x', workflowNotReady));
  expect(failed).toBeInstanceOf(ServiceError);
  expect(failed.message).toBe('Workflow Update failed');
  expect(isGrpcServiceError(failed.cause)).toBe(true);
  expect(failed.cause).toMatchObject({ code: status.FAILED_PRECONDITION, details: 'x', message: '9 FAILED_PRECONDITION: x' });
  expect(grpcDetailTypes(grpcErrorOf(failed)!)).toEqual(['temporal.api.errordetails.v1.WorkflowNotReadyFailure']);
  expect(SdkErrors.fromQuery(grpcError(status.NOT_FOUND, 'workflow not found for ID: team-1'))).toBeInstanceOf(WorkflowNotFoundError);
  expect(SdkErrors.fromUpdate(grpcError(status.DEADLINE_EXCEEDED, 'Deadline exceeded'))).toBeInstanceOf(WorkflowUpdateRPCTimeoutOrCancelledError);
});

test("the code names are grpc-js's", () => {
  for (const [name, code] of Object.entries(status).filter(([, value]) => typeof value === 'number')) expect(GRPC_CODE_NAMES[code as number]).toBe(name);
  expect(GRPC_CODE_NAMES).toHaveLength(17);
});

describe("FAILED_PRECONDITION: the Lead's workflow task failed, nothing of the call was applied: retry (same update id)", () => {
  test.each([
    ['Unable to perform workflow execution update due to Workflow Task in failed state.'],
    ['Unable to perform workflow execution update due to unexpected workflow task failure.'],
  ])('Update: %s', (message) => {
    const verdict = retried(classifyCallError(SdkErrors.fromUpdate(grpcError(status.FAILED_PRECONDITION, message, workflowNotReady)), UPDATE));
    expect(verdict).toMatchObject({ pace: 'quick', onlyWhileRunning: false });
    expect(verdict.why).toContain(`FAILED_PRECONDITION: ${message}`);
    expect(verdict.why).toContain('applied nothing');
  });

  test('query: Unable to query workflow due to Workflow Task in failed state.', () => {
    const error = SdkErrors.fromQuery(
      grpcError(status.FAILED_PRECONDITION, 'Unable to query workflow due to Workflow Task in failed state.', workflowNotReady),
    );
    expect(retried(classifyCallError(error, QUERY)).why).toContain('Workflow Task in failed state');
  });

  test('by its message too, when the status details did not arrive', () => {
    const error = SdkErrors.fromUpdate(
      grpcError(status.FAILED_PRECONDITION, 'Unable to perform workflow execution update due to Workflow Task in failed state.'),
    );
    expect(retried(classifyCallError(error, UPDATE)).pace).toBe('quick');
  });

  test("any other FAILED_PRECONDITION is TeamCallFailed, with the server's words and the update id to retry with", () => {
    const message = 'The limit on the total number of distinct updates in this workflow has been reached (2000).';
    const error = typedError(classifyCallError(SdkErrors.fromUpdate(grpcError(status.FAILED_PRECONDITION, message)), UPDATE));
    expect(error).toBeInstanceOf(TeamCallFailed);
    expect(error).toMatchObject({ type: TEAM_CALL_FAILED, name: TEAM_CALL_FAILED, code: 9, codeName: 'FAILED_PRECONDITION', serverMessage: message });
    expect(error.message).toBe(
      `Team team-1: createTask (update id update-1) failed: the server answered FAILED_PRECONDITION: ${message} ` +
        "The client does not know how to recover from this: check `npm run cli -- status team-1` and the server's logs, " +
        'then retry with the same update id (update-1), which is applied at most once.',
    );
    expect((error as TeamCallFailed).details).toEqual([
      { teamId: 'team-1', operation: 'createTask', updateId: 'update-1', code: 9, codeName: 'FAILED_PRECONDITION', serverMessage: message },
    ]);
    expect(error.cause).toBeInstanceOf(ServiceError);
  });
});

describe('RESOURCE_EXHAUSTED: the server is busy: retry with backoff', () => {
  test.each([
    ['limit on number of concurrent in-flight updates has been reached (128)', RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT, UPDATE],
    ['limit on total payload size of in-flight updates has been reached (2097152 bytes)', RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT, UPDATE],
    ['workflow operation can not be applied because workflow is closing', RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW, UPDATE],
    ['namespace rate limit exceeded', RESOURCE_EXHAUSTED_CAUSE_RPS_LIMIT, UPDATE],
    [
      'consistent query buffer is full, this may be caused by too many queries and workflow not able to process query fast enough',
      RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW,
      QUERY,
    ],
  ])('%s', (message, cause, call) => {
    const grpc = grpcError(status.RESOURCE_EXHAUSTED, message, resourceExhausted(cause));
    const error = call.kind === 'update' ? SdkErrors.fromUpdate(grpc) : SdkErrors.fromQuery(grpc);
    const verdict = retried(classifyCallError(error, call));
    expect(verdict).toMatchObject({ pace: 'backoff', onlyWhileRunning: false });
    expect(verdict.why).toBe(`the server is busy (RESOURCE_EXHAUSTED: ${message})`);
  });

  test('a request alone over the in-flight byte limit never fits: TeamCallFailed, saying to send a smaller one', () => {
    const message = 'limit on total payload size of in-flight updates has been reached (2097152 bytes)';
    const error = SdkErrors.fromUpdate(grpcError(status.RESOURCE_EXHAUSTED, message, resourceExhausted(RESOURCE_EXHAUSTED_CAUSE_CONCURRENT_LIMIT)));
    const failed = typedError(classifyCallError(error, { ...UPDATE, requestBytes: 2_100_000 }));
    expect(failed).toMatchObject({ type: TEAM_CALL_FAILED, codeName: 'RESOURCE_EXHAUSTED', serverMessage: message });
    expect(failed.message).toContain('no retry can fit it: send a smaller one');
    // Below the limit it is the other Updates in flight: wait for them.
    expect(classifyCallError(error, { ...UPDATE, requestBytes: 2_000_000 }).action).toBe('retry');
  });

  test('a message over the gRPC size limit never fits either', () => {
    const message = 'grpc: received message larger than max (5000192 vs. 4194304)';
    const failed = typedError(classifyCallError(SdkErrors.fromUpdate(grpcError(status.RESOURCE_EXHAUSTED, message)), UPDATE));
    expect(failed).toMatchObject({ type: TEAM_CALL_FAILED, code: 8, serverMessage: message });
  });

  test('backoff doubles from 250 ms up to 2 s with ±20 % jitter; the quick pace is 50 ms more per attempt up to 1 s', () => {
    expect([1, 2, 3, 4, 5, 10].map((attempt) => retryDelayMs('backoff', attempt, () => 0.5))).toEqual([250, 500, 1000, 2000, 2000, 2000]);
    expect(retryDelayMs('backoff', 1, () => 0)).toBe(200);
    expect(retryDelayMs('backoff', 1, () => 1)).toBe(300);
    expect([1, 2, 19, 20, 40].map((attempt) => retryDelayMs('quick', attempt))).toEqual([50, 100, 950, 1000, 1000]);
  });
});

test('UNAVAILABLE (the server aborted the Update, or is restarting): retry with backoff', () => {
  const verdict = retried(classifyCallError(SdkErrors.fromUpdate(grpcError(status.UNAVAILABLE, 'workflow update was aborted')), UPDATE));
  expect(verdict).toMatchObject({ pace: 'backoff', why: 'the server is unavailable (UNAVAILABLE: workflow update was aborted)' });
});

describe('the run closing under a call', () => {
  test("an Update's NOT_FOUND (aborted by the closing run) is retried only while the Team still runs", () => {
    const error = SdkErrors.fromUpdate(grpcError(status.NOT_FOUND, 'workflow update was aborted by closing workflow'));
    expect(error).toBeInstanceOf(WorkflowNotFoundError);
    expect(retried(classifyCallError(error, UPDATE))).toMatchObject({ pace: 'quick', onlyWhileRunning: true });
  });

  test("a query's NOT_FOUND is thrown as the SDK's WorkflowNotFoundError (health, forkRoot and the CLI say TeamNotFound)", () => {
    const error = SdkErrors.fromQuery(grpcError(status.NOT_FOUND, 'workflow not found for ID: team-1'));
    expect(typedError(classifyCallError(error, QUERY))).toBe(error);
  });

  test("a deadline error before the call's own deadline is the server's: retried (an Update only while the Team runs)", () => {
    const update = SdkErrors.fromUpdate(grpcError(status.DEADLINE_EXCEEDED, 'context deadline exceeded'));
    expect(retried(classifyCallError(update, UPDATE)).onlyWhileRunning).toBe(true);
    const query = SdkErrors.fromQuery(grpcError(status.DEADLINE_EXCEEDED, 'context deadline exceeded'));
    expect(retried(classifyCallError(query, QUERY)).onlyWhileRunning).toBe(false);
  });

  test('TeamRollingOver from the Lead is retried; its other rejections are thrown as it raised them', () => {
    const rolling = ApplicationFailure.create({ type: 'TeamRollingOver', message: 'the Lead is continuing as new', nonRetryable: false });
    expect(retried(classifyCallError(new WorkflowUpdateFailedError('Workflow Update failed', rolling), UPDATE)).pace).toBe('quick');
    const conflict = ApplicationFailure.create({ type: 'TaskRevisionConflict', message: 'stale', nonRetryable: true });
    expect(typedError(classifyCallError(new WorkflowUpdateFailedError('Workflow Update failed', conflict), UPDATE))).toBe(conflict);
  });
});

describe("anything else: TeamCallFailed with the code name, the server's message and the next step; never a raw ServiceError", () => {
  test.each([
    [status.INVALID_ARGUMENT, 'Blob data size exceeds limit.', 'fix the request before sending it again'],
    [status.PERMISSION_DENIED, 'Request unauthorized.', "Check the client's credentials"],
    [status.UNAUTHENTICATED, 'Request unauthenticated.', "Check the client's credentials"],
    [status.UNIMPLEMENTED, 'unknown method UpdateWorkflowExecution', 'upgrade the Temporal server'],
    [status.INTERNAL, 'something broke', "check `npm run cli -- status team-1` and the server's logs"],
    [status.UNKNOWN, 'who knows', 'retry with the same update id (update-1)'],
  ])('%s %s', (code, message, step) => {
    const failed = typedError(classifyCallError(SdkErrors.fromUpdate(grpcError(code, message)), UPDATE));
    expect(failed).toBeInstanceOf(TeamCallFailed);
    expect(failed).toMatchObject({ type: TEAM_CALL_FAILED, nonRetryable: true, code, codeName: status[code], serverMessage: message, updateId: 'update-1' });
    expect(failed.message).toContain(`the server answered ${status[code]}: ${message}`);
    expect(failed.message).toContain(step);
  });

  test("a query's: no update id, retry once the cause is fixed", () => {
    const failed = typedError(classifyCallError(SdkErrors.fromQuery(grpcError(status.INTERNAL, 'boom')), QUERY));
    expect(failed.message).toBe(
      'Team team-1: getTeamView failed: the server answered INTERNAL: boom. ' +
        "The client does not know how to recover from this: check `npm run cli -- status team-1` and the server's logs, then retry once the cause is fixed.",
    );
  });

  test('a raw grpc-js error (a call made on workflowService directly) is classified by its code the same way', () => {
    expect(classifyCallError(grpcError(status.RESOURCE_EXHAUSTED, 'busy'), UPDATE).action).toBe('retry');
    expect(typedError(classifyCallError(grpcError(status.INTERNAL, 'boom'), UPDATE))).toBeInstanceOf(TeamCallFailed);
  });

  test('a ServiceError with no gRPC status (the request never got an answer) is TeamCallFailed with NO_STATUS', () => {
    const error = SdkErrors.fromUpdate(new Error('Channel has been shut down'));
    expect(error).toBeInstanceOf(ServiceError);
    const failed = typedError(classifyCallError(error, UPDATE));
    expect(failed).toMatchObject({ type: TEAM_CALL_FAILED, code: null, codeName: 'NO_STATUS' });
    expect(failed.message).toContain('the client answered NO_STATUS: Unexpected error while making gRPC request: Channel has been shut down');
  });

  test("errors that are not the server's go up as they are: typed failures, the deadline marker, other errors", () => {
    const rejection = ApplicationFailure.create({ type: 'UnknownMember', message: 'no such teammate', nonRetryable: true });
    const deadline = new DeadlineReached('all slots taken');
    const other = new TypeError('Invalid response from server');
    for (const error of [rejection, deadline, other]) expect(typedError(classifyCallError(error, UPDATE))).toBe(error);
  });
});
