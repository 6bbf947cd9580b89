/**
 * What an AI SDK provider threw, as the ModelCallError the activity maps onto Temporal's retry:
 *  - 429            rate_limited (retryable), retryAfterMs from retry-after / retry-after-ms
 *  - 5xx, network   server_error (retryable), retryAfterMs from retry-after when sent
 *  - 408            timeout (retryable)
 *  - 400/404/422... bad_request (not retryable); 401/403 auth (not retryable)
 *  - unusable body  malformed_response (not retryable)
 * Each message names the endpoint (never its credentials) and the variable to check.
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoContentGeneratedError,
  TypeValidationError,
} from '@ai-sdk/provider';
import { ModelCallError } from '../../shared/contract/model';
import { redactUrlCredentials } from '../../shared/text/redact';
import { TRUNCATED_HEADER } from './cappedFetch';
import { formatBytes, MODEL_ERROR_BODY_MAX_BYTES, parseRetryAfter, serverErrorText } from './http';

/** Where a call went and which settings a person would check, for the messages. */
export interface EndpointFacts {
  /** The endpoint as shown: no userinfo, no secret query values. */
  shown: string;
  /** The dialect, as "chat-completions", "Anthropic Messages", ... */
  api: string;
  /** The variables that configure it. */
  baseUrlVariable: string;
  apiKeyVariable: string;
  modelVariable: string;
}

/** At most this many characters of a cause in a message: the SDK's own messages quote whole bodies, and a message lands in history. */
const MAX_CAUSE_TEXT = 500;

const shorten = (text: string): string => {
  const flat = redactUrlCredentials(text).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_CAUSE_TEXT ? `${flat.slice(0, MAX_CAUSE_TEXT)}…` : flat;
};

const describe = (error: unknown): string =>
  shorten(error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}` : String(error));

/** Why a body was unusable, in a person's words: not JSON (with its start), or which fields had the wrong shape. */
function unusableBody(cause: unknown): string {
  if (JSONParseError.isInstance(cause)) return `body is not JSON: ${shorten(JSON.stringify(cause.text.slice(0, 200)))}`;
  if (TypeValidationError.isInstance(cause)) {
    const issues = (cause.cause as { issues?: unknown } | undefined)?.issues;
    if (Array.isArray(issues)) {
      const listed = issues.map((issue: { path?: unknown[]; message?: unknown }) => `${(issue.path ?? []).join('.') || '(body)'}: ${String(issue.message)}`);
      return shorten(`unexpected shape: ${listed.join('; ')}`);
    }
  }
  return describe(cause);
}

function fromHttpStatus(error: APICallError, status: number, endpoint: EndpointFacts, model: string): ModelCallError {
  const headers = new Headers(error.responseHeaders ?? {});
  const cut = headers.get(TRUNCATED_HEADER) ? ` [error body over ${formatBytes(MODEL_ERROR_BODY_MAX_BYTES)}: the rest was not read]` : '';
  const where = `POST ${endpoint.shown} (model ${model}) returned ${status}: ${serverErrorText(error.responseBody ?? error.message)}${cut}`;
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers);
    return new ModelCallError(`rate limited: ${where}; retry after ${retryAfterMs ?? 'a while'} ms, or lower concurrency / raise the provider's rate limit`, {
      kind: 'rate_limited',
      retryable: true,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status === 401 || status === 403) {
    return new ModelCallError(
      `model server refused the credentials: ${where}; check ${endpoint.apiKeyVariable} (set, valid, and allowed to use model ${model})`,
      { kind: 'auth', retryable: false, status },
    );
  }
  if (status === 408) {
    return new ModelCallError(`model server timed out: ${where}; retry later or raise MODEL_TIMEOUT_MS`, { kind: 'timeout', retryable: true, status });
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(headers);
    return new ModelCallError(`model server error: ${where}; the provider is failing, retry later`, {
      kind: 'server_error',
      retryable: true,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 200 && status < 300) return malformed(endpoint, model, unusableBody(error.cause ?? error), status);
  const advice =
    status === 404
      ? `check ${endpoint.baseUrlVariable} and ${endpoint.modelVariable} (${JSON.stringify(model)})`
      : `the request was rejected; check ${endpoint.modelVariable} (${JSON.stringify(model)}), the tool schemas and the message history`;
  return new ModelCallError(`bad request: ${where}; ${advice}`, { kind: 'bad_request', retryable: false, status });
}

function malformed(endpoint: EndpointFacts, model: string, why: string, status?: number): ModelCallError {
  return new ModelCallError(
    `malformed ${endpoint.api} response from ${endpoint.shown} (model ${model}): ${why}; check that ${endpoint.baseUrlVariable} points at an API of that kind`,
    { kind: 'malformed_response', retryable: false, ...(status === undefined ? {} : { status }) },
  );
}

/** The classified failure of one call (a ModelCallError passes through). */
export function classifyProviderError(error: unknown, endpoint: EndpointFacts, model: string): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (APICallError.isInstance(error)) {
    if (error.statusCode !== undefined) return fromHttpStatus(error, error.statusCode, endpoint, model);
    return new ModelCallError(
      `could not reach the model server at ${endpoint.shown}: ${describe(error)}; check ${endpoint.baseUrlVariable} and that the server is running`,
      { kind: 'server_error', retryable: true, cause: error },
    );
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return new ModelCallError(`no API key for ${endpoint.shown}: set ${endpoint.apiKeyVariable}`, { kind: 'auth', retryable: false, cause: error });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error)
  ) {
    return malformed(endpoint, model, unusableBody(error));
  }
  // Anything else came from the transport (a socket error the SDK did not wrap): worth another attempt.
  return new ModelCallError(
    `could not reach the model server at ${endpoint.shown}: ${describe(error)}; check ${endpoint.baseUrlVariable} and that the server is running`,
    { kind: 'server_error', retryable: true, cause: error },
  );
}
