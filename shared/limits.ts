/**
 * The size budget: one place for the limits that keep every payload a Lead or teammate produces
 * under Temporal's. Temporal refuses a payload over 2 MiB (blobSizeLimitError) and a gRPC message
 * over 4 MiB; an Update result, a continue-as-new input or a child start input over those does not
 * fail one call, it terminates the workflow. So every payload has a budget well below the hard
 * limit, every field that feeds one has a cap derived from that budget, and anything over a cap
 * gets a typed rejection at the edge (or a documented elision) before it can reach a payload.
 * README's "Size budget" table mirrors this module; a unit test keeps them equal.
 *
 * Sizes are UTF-8 bytes of the JSON encoding (what the default payload converter writes), never
 * UTF-16 string lengths. Pure and deterministic: bundled into workflow code.
 */

/** Temporal's default per-payload limit (history blobs, Update results, workflow and activity inputs). */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
/** Temporal's default gRPC message limit (query results and whole requests). */
export const TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024;

/** Any single payload the Team produces stays under this: a 25% margin under the hard limit for envelopes and metadata. */
export const PAYLOAD_BUDGET_BYTES = 1_500_000;

/** UTF-8 length of a string, without TextEncoder or Buffer (workflow code). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** UTF-8 bytes of the JSON encoding of a value (0 for undefined), as the payload converter writes it. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : utf8Length(text);
}
