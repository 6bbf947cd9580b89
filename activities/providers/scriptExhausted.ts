/**
 * The failure of a scripted model stand-in that is called more often than its script has steps.
 * Its own module because both sides need it: the test-only provider (test/support/scriptedProvider.ts)
 * throws it, and the model-call activity (activities/modelCall.ts) maps it to a non-retryable
 * failure, since retrying cannot make a script longer.
 */
export class ScriptExhaustedError extends Error {
  override readonly name = 'ScriptExhaustedError';
  readonly retryable = false;
}
