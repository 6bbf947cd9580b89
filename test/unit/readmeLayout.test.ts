/**
 * The README's layout tree matches the folders: every folder it lists exists, and every top-level
 * folder the repository tracks (dotfolders and node_modules aside) is listed. A unit test starts no
 * process and needs no git checkout, so "tracked" is read from the file system: a folder holding a
 * file that the root .gitignore does not ignore (git tracks no empty folder; build output is ignored).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

const ROOT = path.join(__dirname, '..', '..');

/** The folders of the tree between the layout markers, as paths: `shared/`, then `shared/agent/`… */
export function layoutFolders(readme: string): string[] {
  const block = /<!-- layout:start -->\s*```[^\n]*\n([\s\S]*?)```\s*<!-- layout:end -->/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no layout tree between <!-- layout:start --> and <!-- layout:end -->');
  const stack: string[] = [];
  const folders: string[] = [];
  for (const line of block.split('\n')) {
    const match = /^( *)([^\s]+\/)(?:\s|$)/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 2;
    if (!Number.isInteger(depth) || depth > stack.length) throw new Error(`layout tree: bad indentation: "${line}"`);
    stack.length = depth;
    stack.push(match[2]!);
    folders.push(stack.join(''));
  }
  return folders;
}

/** Whether the folder holds a file git would track: one not ignored, in no ignored folder (a symbolic link is a file to git). */
function holdsTrackableFile(rules: Ignore, folder: string): boolean {
  for (const entry of fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    const child = `${folder}/${entry.name}`;
    const isDirectory = entry.isDirectory();
    // `ignore` reads a trailing slash as "a folder", as git does.
    if (rules.ignores(isDirectory ? `${child}/` : child)) continue;
    if (!isDirectory || holdsTrackableFile(rules, child)) return true;
  }
  return false;
}

/** The top-level folders that hold a file git would track, dotfolders and node_modules aside: `shared/`, `test/`… */
function trackedTopLevelFolders(): string[] {
  const rules = ignore().add(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8'));
  return fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
    .filter((entry) => !rules.ignores(`${entry.name}/`) && holdsTrackableFile(rules, entry.name))
    .map((entry) => `${entry.name}/`);
}

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const listed = layoutFolders(readme);

test('the layout tree parses into nested folders', () => {
  expect(layoutFolders('<!-- layout:start -->\n```\na/   one\n  b/ two\n    c/\n  d/\ne/ three\n```\n<!-- layout:end -->')).toEqual([
    'a/',
    'a/b/',
    'a/b/c/',
    'a/d/',
    'e/',
  ]);
  expect(listed.length).toBeGreaterThan(10);
});

test('every folder the layout tree lists exists', () => {
  const missing = listed.filter((folder) => !fs.existsSync(path.join(ROOT, folder)) || !fs.statSync(path.join(ROOT, folder)).isDirectory());
  expect(missing).toEqual([]);
});

test('the .gitignore reading: folder rules match folders at any depth, globs match names, a rule with a slash matches from the root', () => {
  const rules = ignore().add('# build output\nnode_modules/\n*.log\nbench/results/*.tmp\n/dist/\n\n');
  expect(rules.ignores('node_modules/')).toBe(true);
  expect(rules.ignores('cli/panel/node_modules/')).toBe(true);
  expect(rules.ignores('node_modules')).toBe(false);
  expect(rules.ignores('scripts/run.log')).toBe(true);
  expect(rules.ignores('bench/results/a.tmp')).toBe(true);
  expect(rules.ignores('bench/results/latest.md')).toBe(false);
  expect(rules.ignores('bench/results/a/b.tmp')).toBe(false);
  expect(rules.ignores('x/bench/results/a.tmp')).toBe(false);
  expect(rules.ignores('dist/')).toBe(true);
  expect(rules.ignores('test/dist/')).toBe(false);
});

test('every top-level folder the repository tracks is in the layout tree', () => {
  const topLevel = trackedTopLevelFolders();
  expect(topLevel.length).toBeGreaterThan(5);
  expect(topLevel.filter((folder) => !listed.includes(folder)).sort()).toEqual([]);
});
