/**
 * The README's layout tree matches the folders: every folder it lists exists, and every top-level
 * folder the repository tracks (dotfolders and node_modules aside) is listed. Tracked folders are
 * read from the git index in-process (versions 2 and 3; `git ls-files` otherwise).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

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

/** Paths in the git index (what git tracks, staged additions included). */
function trackedPaths(): string[] {
  const indexFile = path.join(ROOT, '.git', 'index');
  if (fs.existsSync(indexFile) && fs.statSync(path.join(ROOT, '.git')).isDirectory()) {
    const index = fs.readFileSync(indexFile);
    const version = index.readUInt32BE(4);
    if (index.toString('latin1', 0, 4) === 'DIRC' && (version === 2 || version === 3)) {
      const paths: string[] = [];
      let offset = 12;
      for (let n = index.readUInt32BE(8); n > 0; n--) {
        const flags = index.readUInt16BE(offset + 60);
        const nameStart = offset + 62 + (version === 3 && flags & 0x4000 ? 2 : 0);
        const nameEnd = index.indexOf(0, nameStart);
        paths.push(index.toString('utf8', nameStart, nameEnd));
        offset += Math.ceil((nameEnd - offset + 1) / 8) * 8;
      }
      return paths;
    }
  }
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
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

test('every top-level folder the repository tracks is in the layout tree', () => {
  const topLevel = new Set(
    trackedPaths()
      .filter((p) => p.includes('/'))
      .map((p) => `${p.split('/')[0]}/`)
      .filter((folder) => !folder.startsWith('.') && folder !== 'node_modules/'),
  );
  expect(topLevel.size).toBeGreaterThan(5);
  expect([...topLevel].filter((folder) => !listed.includes(folder)).sort()).toEqual([]);
});
