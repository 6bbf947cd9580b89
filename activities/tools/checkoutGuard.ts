/**
 * The checkout is never the worker's own code. Members write the checkout, and whatever they
 * write in the worker's package (its sources run by ts-node, node_modules, dist) runs unsandboxed,
 * with the model key, at the worker's next start. So the work tools refuse a checkout that is,
 * contains or lies inside the package they are loaded from.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHECKOUT_ROOT_ENV, isWithin } from './paths';

export const CHECKOUT_IS_WORKER_CODE = 'CheckoutIsWorkerCode';

/** Refused at start: the work tools would let members edit the code this worker runs. */
export class CheckoutRefused extends Error {
  override readonly name = 'CheckoutRefused';
  readonly type = CHECKOUT_IS_WORKER_CODE;
}

/** The directory of the nearest package.json above `from`: this worker's package. */
export function packageRootOf(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** Throws CheckoutRefused when the checkout at `root` and the worker's package overlap. */
export function assertCheckoutIsNotWorkerCode(root: string, packageRoot: string = packageRootOf(__dirname)): void {
  const checkout = fs.realpathSync(root);
  const ownPackage = fs.realpathSync(packageRoot);
  const how = isWithin(ownPackage, checkout) ? (checkout === ownPackage ? 'is' : 'lies inside') : isWithin(checkout, ownPackage) ? 'contains' : null;
  if (how === null) return;
  throw new CheckoutRefused(
    `the checkout ${checkout} ${how} this worker's own package (${ownPackage}): members could edit the code the worker runs. ` +
      `Set ${CHECKOUT_ROOT_ENV} to the repository the Team should work on, outside ${ownPackage}`,
  );
}
