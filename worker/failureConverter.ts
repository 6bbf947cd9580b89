/**
 * The worker's failure converter: Temporal's default, with every string of every failure made
 * well-formed UTF-16 (each lone surrogate becomes U+FFFD).
 *
 * Why: any caller can put a lone surrogate into a payload (JSON writes it as `"\ud800"`), and a
 * rejection or a typed failure often names what it refused. The SDK writes a failure's message,
 * stack trace and type into the workflow task's (or activity task's) completion as protobuf text,
 * which core decodes as UTF-8: one lone surrogate there made core refuse the completion and shut the
 * whole worker down ("Cannot decode Completion from buffer: InvalidString"). Payloads (details,
 * results) are JSON bytes and carry such text unharmed; only the text fields need this.
 *
 * It is the one converter of both sides: the workflow bundle takes it (worker/workflowBundle.ts) and
 * so does the worker's own data converter, for activity failures (worker/createWorker.ts).
 * Workflow-safe: it imports only @temporalio/common and is deterministic.
 */
import { DefaultFailureConverter, type ProtoFailure } from '@temporalio/common';

/** A string in every bundle made with this converter: worker/workflowBundle.ts checks a prebuilt bundle for it. */
export const WELL_FORMED_FAILURES_MARKER = 'agent-teams:well-formed-failures/v1';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which ES2022 typings lack). */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/**
 * Makes every string property in a failure tree well-formed, in place: message, source, stack
 * trace, failure type and the names in the info records, down every cause. Byte arrays (payload
 * data) and non-plain values are left alone; the converter built the tree, so it has no cycles, but
 * `seen` keeps the walk finite whatever it is given.
 */
function makeWellFormed(node: unknown, seen: Set<object>): void {
  if (typeof node !== 'object' || node === null || node instanceof Uint8Array || seen.has(node)) return;
  seen.add(node);
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (typeof value === 'string') record[key] = wellFormedText(value);
    else makeWellFormed(value, seen);
  }
}

export class WellFormedFailureConverter extends DefaultFailureConverter {
  readonly marker = WELL_FORMED_FAILURES_MARKER;

  override errorToFailure(...args: Parameters<DefaultFailureConverter['errorToFailure']>): ProtoFailure {
    const failure = super.errorToFailure(...args);
    makeWellFormed(failure, new Set());
    return failure;
  }
}

/** The export a `failureConverterPath` module must have. */
export const failureConverter = new WellFormedFailureConverter();
