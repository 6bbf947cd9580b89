/**
 * The size limits: one place for the limits that keep every payload a Lead or teammate produces
 * under Temporal's. Temporal refuses a payload over 2 MiB (blobSizeLimitError) and a gRPC message
 * over 4 MiB; an Update result, a continue-as-new input or a child start input over those does not
 * fail one call, it terminates the workflow. So every payload has a size limit well below the hard
 * limit, every field that feeds one has a cap derived from that limit, and anything over a cap
 * gets a typed rejection at the edge (or a documented elision) before it can reach a payload.
 * The "Size limits" table of docs/semantics.md mirrors this module; a unit test keeps them equal.
 *
 * Sizes are UTF-8 bytes of the JSON encoding (what the default payload converter writes), never
 * UTF-16 string lengths. Pure and deterministic: bundled into workflow code.
 */

/** Temporal's default per-payload limit (history blobs, Update results, workflow and activity inputs). */
export const TEMPORAL_PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
/** Temporal's default gRPC message limit (query results and whole requests). */
export const TEMPORAL_GRPC_MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024;

/** Any single payload the Team produces stays under this: a 25% margin under the hard limit for envelopes and metadata. */
export const PAYLOAD_MAX_BYTES = 1_500_000;

// ---- caps on what feeds a payload (each derived from PAYLOAD_MAX_BYTES; see README) -----------

/** Team ids (the Lead's workflow id): every derived id (teammates, messages, operations) then stays within MAX_ID_LENGTH. */
export const MAX_TEAM_ID_LENGTH = 100;
/** Message ids, wait ids, update ids remembered for de-duplication. */
export const MAX_ID_LENGTH = 200;
/** One message's content (send, spawn's initial message, a prompt to the Lead), as JSON. */
export const MAX_MESSAGE_BYTES = 256 * 1024;
/** Task snapshots on the board (tombstones included) after a create or an edit. */
export const BOARD_MAX_BYTES = 400_000;
/** Non-deleted tasks on the board. */
export const MAX_BOARD_TASKS = 2_000;
/** Deleted tasks kept as tombstones; older ones are forgotten (ids are still never reused). */
export const MAX_TOMBSTONES = 256;
/** Write-scope overlaps listed per task; `overlapsOmitted` counts the rest. */
export const MAX_OVERLAPS_PER_TASK = 10;
/** Overlaps listed in one board view in all; past it tasks list none and count them in `overlapsOmitted`. */
export const VIEW_OVERLAP_MAX_BYTES = 300_000;
/** Messages waiting in the Lead's own inbox. */
export const LEAD_INBOX_MAX_BYTES = 100_000;
/** Messages waiting in a teammate's inbox. */
export const MEMBER_INBOX_MAX_BYTES = 300_000;
/** Message ids an inbox remembers for de-duplication (its newest 2,048 ids, within this many bytes). */
export const SEEN_MAX_BYTES = 200_000;
/** Results remembered whole for retried Updates; larger ones are remembered as task id and revision. */
export const REMEMBERED_RESULT_MAX_BYTES = 512;
/** Historical mailbox records imported on a Lead's first run. */
export const LEGACY_MAILBOX_MAX_BYTES = 50_000;
/** One subagent answer kept by the Lead (longer ones are cut with a note); answers kept per subagent; subagents per Lead. */
export const SUBAGENT_ANSWER_MAX_BYTES = 4_096;
export const SUBAGENT_ANSWERS_KEPT = 2;
export const MAX_SUBAGENTS = 16;
/** Free-text status fields (a Lead's lastError, a member's failure reason). */
export const MAX_STATUS_TEXT_LENGTH = 2_000;

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

// Conversation size limits
/**
 * The chat messages of one model call: the callModel activity input, recorded in history. Half the
 * 2 MiB payload limit: the rest of the input (model name, toolset) is small, and the margin covers
 * envelopes. shared/agent/conversationSize.ts `fitPrompt` keeps every prompt within it.
 */
export const PROMPT_MAX_BYTES = 1_000_000;
/**
 * A conversation carried across continue-as-new or seeded into a fork teammate's start input. It
 * shares that payload with the rest of the carried state (inbox, tasks, subagents), so it gets a
 * third of the payload limit. shared/agent/conversationSize.ts `compactConversation` keeps it within.
 */
export const CARRIED_CONVERSATION_MAX_BYTES = 500_000;
/** A conversation returned by a query (agent state, teammate view): the rest of the view is small. */
export const QUERIED_CONVERSATION_MAX_BYTES = 1_000_000;
