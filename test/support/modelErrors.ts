/** The ModelCallError a provider call fails with; anything else it throws is rethrown, and a result fails the test. */
import { ModelCallError } from '../../shared/contract/model';

export async function modelCallErrorOf(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelCallError) return error;
    throw error;
  }
  throw new Error('expected the call to fail with a ModelCallError');
}
