/**
 * What a refused Update's failure costs the worker to build and convert (issue 28, the racing
 * claims): the Team's typed answer (`rejectionFailure`, which goes through `answerFailure`: no
 * stack frames) against an Error as the floor's validator throws it (frames formatted when the
 * converter reads its stack), both through the worker's failure converter and thrown from the same
 * call depth. Rounds alternate the sides; medians of the rounds. In process, no server.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import { failureConverter } from '../worker/failureConverter';
import { rejectionFailure } from '../shared/contract/failures';
import { reject } from '../shared/contract/rejections';

const ROUNDS = 7;
const OPS = 5_000;
/** About the depth of a validator under the SDK's activator and the project's interceptors. */
const DEPTH = 20;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const atDepth = (depth: number, make: () => Error): Error => (depth === 0 ? make() : atDepth(depth - 1, make));

/** Microseconds per failure, built at DEPTH and converted as the worker converts it. */
function perFailure(make: () => Error): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) failureConverter.errorToFailure(atDepth(DEPTH, make), defaultPayloadConverter);
  return Number(process.hrtime.bigint() - start) / 1e3 / OPS;
}

/** [the Team's refused claim, the floor's refused CAS] in microseconds per failure, medians of ROUNDS. */
export function refusedUpdateFailureMicros(): [number, number] {
  const rejection = reject('TaskRevisionConflict', 'task 7 is at revision 3, not 2: read it again (getTask) and retry with its current revision');
  const team = (): Error => rejectionFailure(rejection);
  const floor = (): Error => new Error('stale revision 2: now 3');
  perFailure(team);
  perFailure(floor);
  const teamUs: number[] = [];
  const floorUs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      teamUs.push(perFailure(team));
      floorUs.push(perFailure(floor));
    } else {
      floorUs.push(perFailure(floor));
      teamUs.push(perFailure(team));
    }
  }
  return [median(teamUs), median(floorUs)];
}
