/**
 * The completion size limit's scheduler (shared/lead/completionSize.ts), against a model simpler than the
 * code: one ordered list of everything offered, cut into completions by a greedy pass that never
 * lets an item overtake an earlier one.
 */
import fc from 'fast-check';
import { COMPLETION_MAX_BYTES, CompletionScheduler, REST_OF_COMPLETION_BYTES } from '../../shared/lead/completionSize';
import { PAYLOAD_MAX_BYTES, TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES } from '../../shared/contract/limits';

const LIMIT = 1_000;

/** One workflow task: bytes forced into it (echoed requests), then items offered in it, in order. */
interface Activation {
  forced: number;
  offered: number[];
}

const activations = fc.array(
  fc.record({ forced: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 })), offered: fc.array(fc.integer({ min: 1, max: 1_200 }), { maxLength: 6 }) }),
  { minLength: 1, maxLength: 12 },
);

/** Runs the scheduler over the activations, then empty ones until nothing waits; what each completion carried. */
function run(plan: Activation[]): { sent: number[][]; forced: number[] } {
  const scheduler = new CompletionScheduler<number>(LIMIT);
  const sent: number[][] = [];
  const forced: number[] = [];
  let id = 0;
  const sizes: number[] = [];
  const steps = [...plan, ...Array.from({ length: 200 }, () => ({ forced: 0, offered: [] }))];
  steps.forEach((step, activation) => {
    if (step.offered.length === 0 && step.forced === 0 && scheduler.waitingCount === 0) return;
    const completion: number[] = [];
    if (step.forced > 0) scheduler.force(activation, step.forced);
    // Items waiting from earlier tasks go first (the drain runs before new arrivals in the model's order).
    completion.push(...scheduler.admitWaiting(activation, (item) => sizes[item]!));
    for (const bytes of step.offered) {
      sizes.push(bytes);
      if (scheduler.offer(activation, bytes, id)) completion.push(id);
      id += 1;
    }
    sent.push(completion);
    forced.push(step.forced);
  });
  expect(scheduler.waitingCount).toBe(0);
  return { sent, forced };
}

test('every item is sent once, in the order offered', () => {
  fc.assert(
    fc.property(activations, (plan) => {
      const total = plan.reduce((n, a) => n + a.offered.length, 0);
      const order = run(plan).sent.flat();
      expect(order).toEqual(Array.from({ length: total }, (_, i) => i));
    }),
  );
});

test('a completion carries at most the limit, or one item alone', () => {
  fc.assert(
    fc.property(activations, (plan) => {
      const sizes = plan.flatMap((a) => a.offered);
      const { sent, forced } = run(plan);
      sent.forEach((items, i) => {
        const bytes = forced[i]! + items.reduce((n, item) => n + sizes[item]!, 0);
        if (bytes > LIMIT) expect(forced[i]! === 0 ? items.length : items.length + 1).toBeLessThanOrEqual(1);
      });
    }),
  );
});

test('an item waits only when it would not fit or an earlier item waits', () => {
  const scheduler = new CompletionScheduler<string>(LIMIT);
  expect(scheduler.offer(1, 600, 'a')).toBe(true);
  expect(scheduler.offer(1, 600, 'b')).toBe(false);
  // Small, and it would fit, but b waits before it.
  expect(scheduler.offer(1, 10, 'c')).toBe(false);
  expect(scheduler.admitWaiting(1, () => 600)).toEqual([]);
  expect(scheduler.admitWaiting(2, (item) => (item === 'b' ? 600 : 10))).toEqual(['b', 'c']);
  // Alone, an item over the limit still goes.
  expect(scheduler.offer(3, 5_000, 'd')).toBe(true);
  // Forced bytes (an echoed request) count: after 900 of them, 200 more wait.
  scheduler.force(4, 900);
  expect(scheduler.offer(4, 200, 'e')).toBe(false);
  expect(scheduler.usedIn(4)).toBe(900);
});

test('a lazy read queues behind waiting items unmeasured, and is measured only when its turn comes', () => {
  const scheduler = new CompletionScheduler<string>(LIMIT);
  // Nothing waits: there is no queue to join, so the caller must offer it with its size.
  expect(() => scheduler.wait(1, 'read')).toThrow(/nothing waits/);
  expect(scheduler.offer(1, 900, 'a')).toBe(true);
  expect(scheduler.offer(1, 900, 'b')).toBe(false);
  scheduler.wait(1, 'read');
  expect(scheduler.waitingCount).toBe(2);
  const measured: string[] = [];
  const measure = (item: string): number => {
    measured.push(item);
    return 900;
  };
  // Activation 2 takes b; the read, measured at 900, no longer fits beside it and waits on.
  expect(scheduler.admitWaiting(2, measure)).toEqual(['b']);
  expect(scheduler.admitWaiting(3, measure)).toEqual(['read']);
  expect(measured).toEqual(['b', 'read', 'read']);
});

test('the limit and what it leaves of the 4 MiB request', () => {
  expect(COMPLETION_MAX_BYTES).toBe(PAYLOAD_MAX_BYTES);
  expect(COMPLETION_MAX_BYTES + REST_OF_COMPLETION_BYTES).toBe(TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES);
});
