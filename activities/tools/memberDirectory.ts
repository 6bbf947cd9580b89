/**
 * A member's directory, as the worker may use it: the root-relative components a member's path
 * (its `cwd`, or where its shell says it ended) stands for, walked through descriptors
 * (beneath.ts, bounded like the file tools' walk) so that no symlink a member planted takes the
 * worker anywhere; null when it is not a directory inside the checkout. The worker never changes
 * into it, stats it or resolves it by path.
 */
import { WorkToolError } from '../../shared/agent/workTools';
import { resolveDirectoryBeneath } from './beneath';

/** `relative` (root-relative, '/'-separated) as real root-relative components joined by '/' ('' for the root), or null. */
export async function memberDirectory(rootReal: string, relative: string): Promise<string | null> {
  const segments = relative.split('/').filter((part) => part !== '' && part !== '.');
  try {
    return (await resolveDirectoryBeneath(rootReal, [rootReal], segments, relative)).join('/');
  } catch (error) {
    if (error instanceof WorkToolError) return null;
    throw error;
  }
}
