/**
 * The floor of the Team's wire operations (issue 28): bare Temporal workflows doing the same thing
 * as the Team with nothing of the project in them. Benchmark-only; run by the measuring process's
 * own worker on its own task queue (bench/floor.ts), never registered in production.
 */
import { condition, defineQuery, defineSignal, defineUpdate, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';

export interface CasState {
  value: string;
  revision: number;
}
/** A compare-and-set write: refused in the validator unless `expectedRevision` is the current revision. */
export const casUpdate = defineUpdate<number, [{ expectedRevision: number; value: string }]>('cas');
export const readCasQuery = defineQuery<CasState>('readCas');
/** Delivers `content` to workflow `to` as a signal and returns once the server has recorded it there. */
export const relayUpdate = defineUpdate<void, [{ to: string; content: string }]>('relay');
export const landSignal = defineSignal<[string]>('land');
export const landedQuery = defineQuery<number>('landed');
export const finishSignal = defineSignal('finish');

/** A small state behind one CAS Update with a validator and one query: the floor of editTask, getTask and racing claims. */
export async function casFloor(): Promise<void> {
  const state: CasState = { value: '', revision: 0 };
  let finished = false;
  setHandler(
    casUpdate,
    ({ value }) => {
      state.value = value;
      state.revision += 1;
      return state.revision;
    },
    {
      validator: ({ expectedRevision }) => {
        if (expectedRevision !== state.revision) throw new Error(`stale revision ${expectedRevision}: now ${state.revision}`);
      },
    },
  );
  setHandler(readCasQuery, () => state);
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => finished);
}

/** An Update that signals another workflow and returns once the signal has landed: the floor of sendMessage. */
export async function relayFloor(): Promise<void> {
  let finished = false;
  setHandler(relayUpdate, async ({ to, content }) => await getExternalWorkflowHandle(to).signal(landSignal, content), {
    validator: ({ to, content }) => {
      if (typeof to !== 'string' || typeof content !== 'string') throw new Error('to and content are strings');
    },
  });
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => finished);
}

/** The relay's target: counts what landed. */
export async function relaySink(): Promise<void> {
  let landed = 0;
  let finished = false;
  setHandler(landSignal, () => void (landed += 1));
  setHandler(landedQuery, () => landed);
  setHandler(finishSignal, () => void (finished = true));
  await condition(() => finished);
}
