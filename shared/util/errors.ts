/** What to show a person (or a model) about something thrown: its message, or its text when it is not an Error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The innermost message of a failure chain: an activity's ActivityFailure wraps the error its body
 * threw, and that is the one a person (or a model) can act on. Empty messages are skipped.
 */
export function innermostMessage(error: unknown): string {
  let current: unknown = error;
  let message = errorMessage(error);
  while (current instanceof Error) {
    message = current.message || message;
    current = current.cause;
  }
  return message;
}
