/**
 * Handlers that cannot break a workflow. A signal handler parses its payload, ignores (and counts)
 * what is malformed, from a non-member or for an unknown key, and never throws; signals with no
 * handler are counted and dropped instead of being buffered for ever. An Update handler and its
 * validator fail only with typed ApplicationFailures, and its result stays within the size limits: its
 * own (PAYLOAD_MAX_BYTES) and, with the other items of its workflow task, the completion's.
 */
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { ApplicationFailure, defineSignal, isCancellation, setDefaultSignalHandler, setHandler } from '@temporalio/workflow';
import type { z } from 'zod';
import type { IgnoredSignals } from '../../shared/contract/signals';
import { PAYLOAD_MAX_BYTES, jsonBytes } from '../../shared/contract/limits';
import { answerFailure } from '../../shared/contract/failures';
import { errorMessage } from '../../shared/util/errors';
import { countAcceptedRequest, deliverResult, resultsInArrivalOrder, settleRead, settleWithRoom, type ResultSlot } from './completionSize';
export { noIgnoredSignals, type IgnoredSignals } from '../../shared/contract/signals';

/** What a handler did with a signal it parsed. */
export type SignalOutcome = 'applied' | 'nonMember' | 'unknownKey';

export interface SignalGuard {
  /** Called for every signal ignored, with the reason (per-run counts of ignored signals). */
  ignore(reason: keyof IgnoredSignals): void;
  /** Called for every signal received, handled or not (per-run signal counts). */
  onSignal(): void;
}

/** The same wire name, with the payload typed as what it really is before parsing: unknown, maybe absent. */
export function untrusted(definition: SignalDefinition<never> | { name: string }): SignalDefinition<[unknown?]> {
  return defineSignal<[unknown?]>(definition.name);
}

/** A handler for a parsed signal (shared/contract/signalRegistry.ts): its payload parsed with the entry's schema, or counted as malformed. */
export function guardedSignal<Schema extends z.ZodType>(
  guard: SignalGuard,
  { definition, schema }: { definition: { name: string }; schema: Schema },
  handle: (payload: z.output<Schema>) => SignalOutcome,
): void {
  setHandler(untrusted(definition), (payload?: unknown) => {
    guard.onSignal();
    const parsed = schema.safeParse(payload);
    if (!parsed.success) {
      guard.ignore('malformed');
      return;
    }
    try {
      const outcome = handle(parsed.data);
      if (outcome !== 'applied') guard.ignore(outcome);
    } catch {
      guard.ignore('failed');
    }
  });
}

export function ignoreUnknownSignals(guard: SignalGuard): void {
  setDefaultSignalHandler(() => {
    guard.onSignal();
    guard.ignore('unknownSignal');
  });
}

/**
 * An Update handler and its synchronous validator, both made to fail only with a typed
 * ApplicationFailure: an unexpected error (a bug) becomes TeamInternalError for that one call
 * instead of failing the workflow task, which would wedge the Lead on every retry.
 */
export function guardedUpdate<Ret, Args extends unknown[]>(
  definition: UpdateDefinition<Ret, Args>,
  handler: (...args: Args) => Ret | Promise<Ret>,
  validator: (...args: Args) => void,
  /** Also type an async handler's late failures. Off for runs recorded before it existed: the extra promise step reorders commands. */
  typeAsyncFailures = true,
  /**
   * For reads, whose result can wait for a later workflow task (workflows/common/completionSize.ts):
   * `admit` is the handler's work without the result (its checks and counts), `produce` the result
   * alone. In runs that send results in arrival order a read is synchronous and is not produced
   * when it must wait, only by the task that sends it; before that, the handler ran and `produce`
   * made it again when it waited.
   */
  read?: { admit: (...args: Args) => void; produce: (...args: Args) => Ret },
): void {
  const deliver = (result: Ret, again?: () => Ret): Ret | Promise<Ret> =>
    deliverResult(withinPayloadLimit(definition.name, result), again && typedAgain(definition.name, again));
  setHandler(
    definition,
    (...args: Args): Ret | Promise<Ret> => {
      try {
        // The SDK echoes the accepted request in this task's completion.
        countAcceptedRequest(args);
        const again = read && ((): Ret => read.produce(...args));
        if (resultsInArrivalOrder()) return inArrivalOrder(definition.name, () => handler(...args), read && (() => read.admit(...args)), again);
        const result = handler(...args);
        if (!(result instanceof Promise)) return deliver(result, again);
        return typeAsyncFailures
          ? result.then(
              (value) => deliver(value, again),
              (error: unknown) => {
                throw typedFailure(error);
              },
            )
          : result;
      } catch (error) {
        throw typedFailure(error);
      }
    },
    {
      validator: (...args: Args): void => {
        try {
          validator(...args);
        } catch (error) {
          throw typedFailure(error);
        }
      },
    },
  );
}

/**
 * An accepted Update's result in a run that sends results in arrival order: one promise, settled
 * with a plain value or a typed failure under the completion size limit (resultsInArrivalOrder says why).
 * A read (`admit` and `produce` given) is synchronous: admitted now, then produced now or by the
 * task that sends it (settleRead). Anything else runs `handler` and waits for room once its result
 * is ready.
 */
function inArrivalOrder<Ret>(updateName: string, handler: () => Ret | Promise<Ret>, admit?: () => void, produce?: () => Ret): Promise<Ret> {
  return new Promise<Ret>((resolve, reject) => {
    const slot: ResultSlot<Ret> = { resolve, reject: (error) => reject(typedFailure(error)) };
    const ready = (value: Ret): void => {
      try {
        settleWithRoom(slot, withinPayloadLimit(updateName, value));
      } catch (error) {
        slot.reject(error);
      }
    };
    try {
      if (admit && produce) {
        admit();
        settleRead(slot, typedAgain(updateName, produce));
        return;
      }
      const result = handler();
      if (result instanceof Promise) result.then(ready, (error: unknown) => slot.reject(error));
      else ready(result);
    } catch (error) {
      slot.reject(error);
    }
  });
}

/** A read's result made again in a later task, within its size limit, failing only typed. */
function typedAgain<Ret>(updateName: string, again: () => Ret): () => Ret {
  return () => {
    try {
      return withinPayloadLimit(updateName, again());
    } catch (error) {
      throw typedFailure(error);
    }
  };
}

export const TEAM_INTERNAL_ERROR = 'TeamInternalError';

/**
 * The last line of the size limits: an Update result over PAYLOAD_MAX_BYTES would make the
 * server terminate the workflow, so that one call fails with PayloadTooLarge instead. The caps on
 * every field keep results far below this; reaching it is a bug in a cap.
 */
function withinPayloadLimit<T>(updateName: string, result: T): T {
  const bytes = jsonBytes(result);
  if (bytes <= PAYLOAD_MAX_BYTES) return result;
  throw answerFailure({
    type: 'PayloadTooLarge',
    message:
      `${updateName}'s result would be ${bytes} bytes, over the ${PAYLOAD_MAX_BYTES}-byte payload budget; ` +
      `read less at once (readTask for one task) and report this with the Team id`,
    nonRetryable: true,
  });
}

function typedFailure(error: unknown): Error {
  if (error instanceof ApplicationFailure || isCancellation(error)) return error as Error;
  const message = errorMessage(error);
  return ApplicationFailure.create({
    type: TEAM_INTERNAL_ERROR,
    message:
      `the Lead could not handle this call (${message.slice(0, 500)}); ` +
      `this is a bug: report it with the Team id, and check the Team's state before retrying`,
    nonRetryable: true,
  });
}
