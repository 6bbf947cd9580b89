/**
 * The size limit of one workflow-task completion. Everything a workflow task hands back travels in
 * one gRPC request, which the frontend refuses over 4 MiB; since server 1.30 that terminates the
 * workflow (temporalio/temporal #8610). Each payload has its own size limit (shared/contract/limits.ts), but
 * several of them completed in one task add up: 32 `listTasks` results of 700 kB each are 22 MB.
 *
 * This module is the pure part of the rule that bounds the sum: it decides, for each item that
 * would go into a completion, whether it goes into this one or waits for a later one, and in what
 * order the waiting items go. Workflow code (workflows/common/completionSize.ts) measures the
 * items, names the activation (the workflow task) and forces the next one when items wait.
 *
 * Pure and deterministic: bundled into workflow code.
 */
import { PAYLOAD_MAX_BYTES, TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES } from '../contract/limits';

/**
 * What one completion may carry of what the workflow produces or accepts: the requests of the
 * Updates it accepts (the SDK echoes each one back), Update results, and the payloads of its
 * commands (activity inputs, child starts, signals, the continue-as-new input, the final result).
 * Equal to PAYLOAD_MAX_BYTES, so any single item fits in a completion of its own; more items
 * share one only while their sum stays within it. The rest of the 4 MiB request is for what the
 * workflow cannot count (see REST_OF_COMPLETION_BYTES).
 */
export const COMPLETION_MAX_BYTES = PAYLOAD_MAX_BYTES;

/**
 * Counted per item on top of its JSON bytes: the Update id and name, the payload's metadata and
 * the protocol framing around it. Generous (an Update id is 36 bytes, `encoding: json/plain` 20).
 */
export const COMPLETION_ITEM_OVERHEAD_BYTES = 512;

/**
 * What a completion can carry that no workflow code can count, and therefore outside the limit:
 *  - the echoes of the Update requests the workflow *rejects*: a rejection leaves no trace in
 *    history, so counting it would make a replay decide differently. The server bounds the
 *    requests in flight per workflow (history.maxInFlightUpdatePayloads, 1 MiB in this project's
 *    settings: scripts/serverSettings.ts), accepted and rejected together;
 *  - the answer to the one query the server may attach to a workflow task
 *    (history.MaxBufferedQueryCount, default 1), about 1.05 MB at most by the query caps.
 * Both together take at most 2.1 MB of these 2,694,304 bytes.
 */
export const REST_OF_COMPLETION_BYTES = TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES - COMPLETION_MAX_BYTES;

/**
 * Holds the items of a workflow's completions in arrival order. An activation is named by any
 * value that changes from one workflow task to the next (workflow code uses the history length).
 *
 * The rule, for each item in arrival order: it goes into the current completion when nothing is
 * waiting before it and it fits (the completion is empty, or its bytes so far plus the item's stay
 * within the limit); otherwise it waits, and in each later activation the waiting items go, oldest
 * first, while the oldest fits.
 */
export class CompletionScheduler<T> {
  private activation: number | null = null;
  private used = 0;
  private readonly waiting: T[] = [];

  constructor(private readonly maxBytes: number = COMPLETION_MAX_BYTES) {}

  /** Bytes already in the completion of `activation`. */
  usedIn(activation: number): number {
    this.enter(activation);
    return this.used;
  }

  /** Items waiting for a later completion. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** An item that is in this completion whatever is decided: an accepted Update's echoed request. */
  force(activation: number, bytes: number): void {
    this.enter(activation);
    this.used += bytes;
  }

  /** True when the item goes into this completion (its bytes are counted); false when it waits. */
  offer(activation: number, bytes: number, item: T): boolean {
    this.enter(activation);
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.used += bytes;
      return true;
    }
    this.waiting.push(item);
    return false;
  }

  /** An item that waits whatever its size, because others wait before it (the caller checked waitingCount). */
  wait(activation: number, item: T): void {
    this.enter(activation);
    if (this.waiting.length === 0) throw new Error('CompletionScheduler.wait: nothing waits, so the item may go now: offer it');
    this.waiting.push(item);
  }

  /**
   * The waiting items that go into the completion of `activation`, oldest first. `measure` is
   * called on each item as it is considered, so a deferred read is measured as it will be sent.
   */
  admitWaiting(activation: number, measure: (item: T) => number): T[] {
    this.enter(activation);
    const admitted: T[] = [];
    while (this.waiting.length > 0) {
      const bytes = measure(this.waiting[0]!);
      if (!this.fits(bytes)) break;
      this.used += bytes;
      admitted.push(this.waiting.shift()!);
    }
    return admitted;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.maxBytes;
  }

  private enter(activation: number): void {
    if (activation === this.activation) return;
    this.activation = activation;
    this.used = 0;
  }
}
