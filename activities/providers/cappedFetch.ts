/**
 * The fetch every AI SDK provider is given: one request, its body read under a byte cap before the
 * provider parses it. A success body over MODEL_RESPONSE_MAX_BYTES fails the call
 * (malformed_response, not retryable) and aborts the request; an error body is cut at
 * MODEL_ERROR_BODY_MAX_BYTES (it only feeds the message) and marked so.
 */
import { ModelCallError } from '../../shared/contract/model';
import { formatBytes, MODEL_ERROR_BODY_MAX_BYTES, MODEL_RESPONSE_MAX_BYTES, readCapped } from './http';

/** Set on an error response whose body was cut at the cap, so the classified error can say so. */
export const TRUNCATED_HEADER = 'x-agent-teams-body-truncated';

export function cappedFetch(inner: typeof fetch, shown: () => string): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal;
    const onAbort = (): void => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await inner(input, { ...init, signal: controller.signal });
      const cap = response.ok ? MODEL_RESPONSE_MAX_BYTES : MODEL_ERROR_BODY_MAX_BYTES;
      const body = await readCapped(response, cap, response.ok, () => controller.abort(new Error(`response body over ${formatBytes(cap)}`)));
      if (response.ok && body.truncated) {
        throw new ModelCallError(
          `malformed response from ${shown()}: the body is larger than the ${formatBytes(MODEL_RESPONSE_MAX_BYTES)} cap on a model response, ` +
            `so the request was aborted and the body not used (a completion is far smaller)`,
          { kind: 'malformed_response', retryable: false, status: response.status },
        );
      }
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      headers.delete('content-encoding');
      // The mark is ours alone: a server that sends it gets it removed.
      headers.delete(TRUNCATED_HEADER);
      if (body.truncated) headers.set(TRUNCATED_HEADER, '1');
      return new Response(body.text, { status: response.status, statusText: response.statusText, headers });
    } finally {
      outer?.removeEventListener('abort', onAbort);
    }
  };
}
