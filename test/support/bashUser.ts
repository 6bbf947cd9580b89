/**
 * Tests run as root in CI, and bash never runs as root (activities/tools/sandboxIdentity.ts): it
 * runs as the checkout's owner. `giveToBash` hands a test's checkout (and the directories above
 * it, up to `reach`) to `nobody`, a user every Debian system has, so bash can write it; as any
 * other user it does nothing, since bash then runs as that user.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The user bash runs as in tests run by root (nobody:nogroup). */
export const TEST_BASH_USER = { uid: 65534, gid: 65534 } as const;

export const runningAsRoot = (): boolean => process.getuid?.() === 0;

function chownTree(target: string, uid: number, gid: number): void {
  fs.lchownSync(target, uid, gid);
  if (!fs.lstatSync(target).isDirectory()) return;
  for (const entry of fs.readdirSync(target)) chownTree(path.join(target, entry), uid, gid);
}

/** Gives `dir` and all it holds to the test bash user; `reach` (an ancestor) and the directories between become traversable. */
export function giveToBash(dir: string, reach?: string): string {
  if (!runningAsRoot()) return dir;
  chownTree(dir, TEST_BASH_USER.uid, TEST_BASH_USER.gid);
  if (reach !== undefined) {
    for (let parent = path.dirname(dir); parent.startsWith(reach); parent = path.dirname(parent)) {
      fs.chmodSync(parent, fs.statSync(parent).mode | 0o011);
      if (parent === reach) break;
    }
  }
  return dir;
}
