/** What to show a person (or a model) about something thrown: its message, or its text when it is not an Error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
