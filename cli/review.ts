/**
 * `agent-teams review`: what a Team changed in a checkout, read without running anything the
 * checkout holds (issue 53). A checkout a member wrote is untrusted content, like a stranger's
 * repository: its git config may name an fsmonitor, a pager, filters, diff drivers or hooks, and
 * its files may arm hook frameworks, package scripts, Makefiles and direnv. The review runs git only
 * through `gitCommand`, which turns off every git setting that runs a program (docs/security.md),
 * reads untracked files itself (never following a symlink), never enters a nested repository, and
 * calls out the changed files that other tools run (`categorize`, pure). With `commit` it commits
 * the reviewed changes the same way, hooks off.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { terminalJson, terminalText } from '../shared/text/inertText';

export const REVIEW_FAILED = 'ReviewFailed';

/** A failed review: prints as `error (ReviewFailed): …` and exits 1. */
export class ReviewError extends Error {
  override readonly name = REVIEW_FAILED;
}

export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'typechange' | 'untracked' | 'unmerged';

/** One changed path: git's modes as octal text (`100644`, `100755`, `120000`, `160000`), null where absent. */
export interface ChangedPath {
  path: string;
  status: ChangeStatus;
  oldMode: string | null;
  newMode: string | null;
  /** For a package.json: whether its `scripts` field changed (scriptsChange). */
  scriptsChanged?: boolean;
}

export type Category =
  | 'hook-framework'
  | 'package-scripts'
  | 'makefile'
  | 'direnv'
  | 'package-manager-config'
  | 'ci'
  | 'editor-tasks'
  | 'git-attributes'
  | 'executable'
  | 'symlink'
  | 'nested-repository'
  | 'hidden-from-diff';

export interface Finding {
  category: Category;
  path: string;
  detail: string;
}

/** What each category means, for the human output. */
export const CATEGORY_TITLES: Readonly<Record<Category, string>> = {
  'hook-framework': 'hook frameworks and hooks directories (run by git commit, push, … once installed)',
  'package-scripts': 'package.json scripts (run by npm install, npm test, npm run …)',
  makefile: 'Makefiles (run by make)',
  direnv: '.envrc (run by direnv on cd)',
  'package-manager-config': 'package manager config (.npmrc, .yarnrc, .pnpmfile.cjs)',
  ci: 'CI definitions (run by CI on push)',
  'editor-tasks': 'editor task and run configurations (.vscode, .idea)',
  'git-attributes': 'git attributes and submodules (select filters and diff drivers)',
  executable: 'new or changed executable files',
  symlink: 'new or changed symbolic links',
  'nested-repository': 'nested repositories (gitlinks, .git below the root): listed, never entered',
  'hidden-from-diff': 'index entries git diff does not compare (assume-unchanged, skip-worktree)',
};

const segments = (p: string): string[] => p.split('/');

/** The category of a changed path by its name alone, with why; null when no tool runs it. `hooksPath`: core.hooksPath relative to the root. */
export function categoryOfPath(p: string, hooksPath?: string): { category: Category; detail: string } | null {
  const parts = segments(p);
  const base = parts[parts.length - 1] ?? p;
  const under = (dir: string): boolean => parts.slice(0, -1).includes(dir);
  if (hooksPath && hooksPath !== '.' && (p === hooksPath || p.startsWith(`${hooksPath.replace(/\/+$/, '')}/`))) {
    return { category: 'hook-framework', detail: `in core.hooksPath ${hooksPath}: git runs these as hooks` };
  }
  if (under('.husky')) return { category: 'hook-framework', detail: 'husky hook' };
  if (/^\.?lefthook(-local)?\.(yml|yaml|json|toml)$/i.test(base) || under('.lefthook')) return { category: 'hook-framework', detail: 'lefthook configuration' };
  if (base === '.pre-commit-config.yaml' || base === '.pre-commit-hooks.yaml') return { category: 'hook-framework', detail: 'pre-commit configuration' };
  if (under('.githooks') || under('.git-hooks') || under('git-hooks') || under('githooks')) return { category: 'hook-framework', detail: 'a hooks directory' };
  if (/^(GNUmakefile|makefile|Makefile)$/.test(base) || base.endsWith('.mk')) return { category: 'makefile', detail: 'make runs its recipes' };
  if (base === '.envrc') return { category: 'direnv', detail: 'direnv runs it on cd' };
  if (base === '.npmrc' || base.startsWith('.yarnrc') || base === '.pnpmfile.cjs' || base === '.pnpmfile.mjs') {
    return { category: 'package-manager-config', detail: 'read (and for .pnpmfile, run) by the package manager' };
  }
  const dir = parts.slice(0, -1).join('/');
  if (dir === '.github/workflows' || dir.startsWith('.github/workflows/') || dir.endsWith('/.github/workflows') || dir.includes('/.github/workflows/')) {
    return { category: 'ci', detail: 'GitHub Actions workflow' };
  }
  if (base === '.gitlab-ci.yml') return { category: 'ci', detail: 'GitLab CI' };
  if (under('.circleci')) return { category: 'ci', detail: 'CircleCI' };
  if (under('.vscode') && /^(tasks|launch|settings)\.json$/.test(base)) return { category: 'editor-tasks', detail: `VS Code ${base}` };
  if (under('.idea')) return { category: 'editor-tasks', detail: 'JetBrains project configuration' };
  if (base === '.gitattributes' || base === '.gitmodules') return { category: 'git-attributes', detail: `${base}: names filters, diff drivers or submodules` };
  return null;
}

const MODE_EXECUTABLE = '100755';
const MODE_SYMLINK = '120000';
const MODE_GITLINK = '160000';

/**
 * The findings of a list of changes: every changed path a tool runs, by category, in the list's
 * order. Pure: what it needs of the contents (package.json scripts) comes in `scriptsChanged`.
 */
export function categorize(changes: readonly ChangedPath[], hooksPath?: string): Finding[] {
  const findings: Finding[] = [];
  for (const change of changes) {
    const { path: p, status, oldMode, newMode } = change;
    if (status === 'deleted') {
      const byName = categoryOfPath(p, hooksPath);
      if (byName) findings.push({ category: byName.category, path: p, detail: `deleted: ${byName.detail}` });
      continue;
    }
    const byName = categoryOfPath(p, hooksPath);
    if (byName) findings.push({ category: byName.category, path: p, detail: byName.detail });
    if ((p === 'package.json' || p.endsWith('/package.json')) && change.scriptsChanged) {
      findings.push({ category: 'package-scripts', path: p, detail: 'its "scripts" changed' });
    }
    if (newMode === MODE_EXECUTABLE) {
      const detail =
        status === 'added' || status === 'untracked' ? 'new executable file' : oldMode === MODE_EXECUTABLE ? 'changed executable file' : 'made executable';
      findings.push({ category: 'executable', path: p, detail });
    }
    if (newMode === MODE_SYMLINK)
      findings.push({ category: 'symlink', path: p, detail: status === 'modified' ? 'changed symbolic link' : 'new symbolic link' });
    if (newMode === MODE_GITLINK) findings.push({ category: 'nested-repository', path: p, detail: 'gitlink (mode 160000): a commit of another repository' });
  }
  return findings;
}

/** Whether a package.json's `scripts` differ between two texts (null: no such file). Unparseable JSON counts as changed. */
export function scriptsChanged(before: string | null, after: string | null): boolean {
  const scripts = (text: string | null): string | null => {
    if (text === null) return 'null';
    try {
      const parsed = JSON.parse(text) as unknown;
      const value = typeof parsed === 'object' && parsed !== null && 'scripts' in parsed ? parsed.scripts : undefined;
      return JSON.stringify(value ?? null, (_key, v: unknown) =>
        typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
      );
    } catch {
      return null;
    }
  };
  const [a, b] = [scripts(before), scripts(after)];
  return a === null || b === null || a !== b;
}

/** The keys of git config that name a program git runs, or decide what it runs (lowercase, as `git config --list` prints them). */
const RUNNING_KEYS = new RegExp(
  '^(' +
    [
      'core\\.(fsmonitor|usebuiltinfsmonitor|hookspath|pager|editor|sshcommand|gitproxy|askpass|alternaterefscommand|worktree)',
      'pager\\..+',
      'sequence\\.editor',
      'diff\\.external',
      'diff\\..+\\.(command|textconv)',
      '(difftool|mergetool)\\..+\\.cmd',
      'merge\\..+\\.driver',
      'filter\\..+\\.(clean|smudge|process)',
      'gpg\\.(program|.+\\.program|ssh\\.defaultkeycommand)',
      'credential\\.(.+\\.)?helper',
      'remote\\..+\\.(uploadpack|receivepack|vcs)',
      'protocol\\.(.+\\.)?allow',
      'uploadpack\\.packobjectshook',
      'include\\.path',
      'includeif\\..+\\.path',
      'hook\\..+',
      'sendemail\\..*cmd',
      'web\\.browser',
      '(browser|man)\\..+\\.(cmd|path)',
      'extensions\\.partialclone',
    ].join('|') +
    ')$',
);

/** Whether a config entry names a program plain git would run here (an alias or a submodule update only with `!`, a URL only through a helper: `ext::`). */
export function runsProgram(key: string, value: string): boolean {
  const lower = key.toLowerCase();
  if (/^alias\./.test(lower) || /^submodule\..+\.update$/.test(lower)) return value.trimStart().startsWith('!');
  if (/^remote\..+\.(url|pushurl)$/.test(lower)) return /^[A-Za-z][A-Za-z0-9+.-]*::/.test(value);
  return RUNNING_KEYS.test(lower);
}

/** The flags and environment that run git on an untrusted checkout with nothing of it running. */
export interface SafeGit {
  /** `-c` pairs, before the subcommand. */
  configArgs: string[];
  env: Record<string, string>;
}

/** Names of the config's drivers of each kind (`filter.<name>.*`, `diff.<name>.*`, `merge.<name>.*`, `protocol.<name>.allow`), from its key list. */
export function driverNames(keys: readonly string[], section: 'filter' | 'diff' | 'merge' | 'protocol' | 'hook'): string[] {
  const names = new Set<string>();
  for (const key of keys) {
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    if (first > 0 && last > first && key.slice(0, first).toLowerCase() === section) names.add(key.slice(first + 1, last));
  }
  return [...names];
}

/** Passed through from the operator's environment: locale, paths, identity. Every other variable (GIT_*, PAGER, EDITOR, …) is left out. */
const PASSED_ENV = /^(HOME|USER|LOGNAME|LANG|LC_[A-Z]+|TZ|TMPDIR|GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE))$/;

/**
 * Every git setting that could run a program, off, for the commands review runs (diff, ls-files,
 * ls-tree, cat-file, config, add, commit, rev-parse). Command-line `-c` wins over every config file;
 * the drivers, whose names are the config's own, are turned off by name (`keys`: the config's keys).
 */
export function safeGit(checkout: string, gitDir: string, keys: readonly string[], baseEnv: NodeJS.ProcessEnv = process.env): SafeGit {
  const pairs: [string, string][] = [
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['core.useBuiltinFSMonitor', 'false'],
    ['core.untrackedCache', 'false'],
    ['core.pager', 'cat'],
    ['core.editor', 'false'],
    ['sequence.editor', 'false'],
    ['core.sshCommand', 'false'],
    ['core.askPass', '/bin/false'],
    ['core.alternateRefsCommand', ''],
    ['core.useReplaceRefs', 'false'],
    ['core.fileMode', 'true'],
    ['core.quotePath', 'true'],
    ['diff.external', ''],
    ['diff.ignoreSubmodules', 'all'],
    ['status.submoduleSummary', 'false'],
    ['submodule.recurse', 'false'],
    ['protocol.allow', 'never'],
    ['credential.helper', ''],
    ['gpg.program', 'false'],
    ['gpg.openpgp.program', 'false'],
    ['gpg.ssh.program', 'false'],
    ['gpg.x509.program', 'false'],
    ['gpg.ssh.defaultKeyCommand', ''],
    ['commit.gpgSign', 'false'],
    ['log.showSignature', 'false'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['uploadpack.packObjectsHook', ''],
    ['color.ui', 'false'],
  ];
  for (const name of driverNames(keys, 'filter')) {
    pairs.push([`filter.${name}.clean`, ''], [`filter.${name}.smudge`, ''], [`filter.${name}.process`, ''], [`filter.${name}.required`, 'false']);
  }
  for (const name of driverNames(keys, 'diff')) pairs.push([`diff.${name}.command`, ''], [`diff.${name}.textconv`, '']);
  for (const name of driverNames(keys, 'merge')) pairs.push([`merge.${name}.driver`, '']);
  for (const name of driverNames(keys, 'protocol')) pairs.push([`protocol.${name}.allow`, 'never']);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(baseEnv)) if (value !== undefined && PASSED_ENV.test(key)) env[key] = value;
  Object.assign(env, {
    // Only absolute directories outside the checkout: a relative PATH entry would find a `git` the member wrote.
    PATH: (baseEnv.PATH ?? '/usr/bin:/bin')
      .split(':')
      .filter((dir) => path.isAbsolute(dir) && !isWithin(checkout, dir))
      .join(':'),
    GIT_DIR: gitDir,
    GIT_WORK_TREE: checkout,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_EDITOR: 'false',
    GIT_SEQUENCE_EDITOR: 'false',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    // A list naming no real protocol: every transport refused, whatever protocol.<name>.allow says.
    GIT_ALLOW_PROTOCOL: 'none',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
  });
  return { configArgs: pairs.flatMap(([key, value]) => ['-c', `${key}=${value}`]), env };
}

function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  truncated: boolean;
}

/** Runs git, reading at most `maxBytes` of its output (then it is stopped), within `timeoutMs`. */
function runGit(
  safe: SafeGit,
  cwd: string,
  args: string[],
  opts: { maxBytes?: number; timeoutMs: number; allowFail?: boolean; raw?: boolean },
): Promise<GitResult> {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const argv = opts.raw ? args : ['--no-pager', ...safe.configArgs, ...args];
    const child = spawn('git', argv, { cwd, env: safe.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) {
        truncated = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new ReviewError(
          error.code === 'ENOENT'
            ? 'git is not installed or not on PATH (review runs git from the absolute PATH entries only); install git and run review again'
            : `cannot run git: ${error.message}`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(chunks).subarray(0, truncated ? maxBytes : undefined);
      if (truncated || code === 0 || opts.allowFail) return resolve({ stdout, stderr, code, truncated });
      const why = signal === 'SIGKILL' ? `took longer than ${Math.round(opts.timeoutMs / 1000)}s` : `failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`;
      reject(new ReviewError(`git ${args[0] ?? ''} ${why}`));
    });
  });
}

export interface NestedRepository {
  path: string;
  kind: 'gitlink' | 'git-directory' | 'git-file';
  /** A gitlink's commit in the index (null: absent) and in HEAD. */
  commit?: string | null;
  headCommit?: string | null;
}

export interface ReviewReport {
  checkout: string;
  head: string | null;
  changes: ChangedPath[];
  findings: Finding[];
  nested: NestedRepository[];
  /** What plain git would run in this checkout: config keys that name programs, and armed hook files. */
  gitRunners: { kind: 'config' | 'hook'; name: string; value: string }[];
  stat: string;
  diff: string;
  /** Whether the diff (or the untracked files' text) was cut at the size bound. */
  truncated: boolean;
  commit?: { sha: string; message: string; excluded: string[] };
}

export interface ReviewOptions {
  checkout: string;
  /** Commit the reviewed changes with this message. */
  commitMessage?: string;
  /** Bound of the diff text (stat, patch and untracked files together). */
  maxDiffBytes?: number;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export const DEFAULT_MAX_DIFF_BYTES = 1024 * 1024;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

const nulFields = (buffer: Buffer): string[] =>
  buffer
    .toString('utf8')
    .split('\0')
    .filter((field) => field !== '');

/** `git diff --raw -z` records: `:old new oldsha newsha S\0path\0`. */
function parseRaw(buffer: Buffer): ChangedPath[] {
  const fields = nulFields(buffer);
  const changes: ChangedPath[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, , , letter] = fields[i]!.slice(1).split(' ');
    const status: ChangeStatus =
      letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'T' ? 'typechange' : letter === 'U' ? 'unmerged' : 'modified';
    changes.push({ path: fields[i + 1]!, status, oldMode: oldMode === '000000' ? null : oldMode!, newMode: newMode === '000000' ? null : newMode! });
  }
  return changes;
}

/** `ls-files -s -z` / `ls-tree -r -z`: gitlinks (mode 160000) by path, with their commit. */
function gitlinks(buffer: Buffer, format: 'index' | 'tree'): Map<string, string> {
  const links = new Map<string, string>();
  for (const record of nulFields(buffer)) {
    const tab = record.indexOf('\t');
    const [mode, a, b] = record.slice(0, tab).split(' ');
    if (mode === MODE_GITLINK) links.set(record.slice(tab + 1), format === 'index' ? a! : b!);
  }
  return links;
}

/**
 * Directories below the root holding a `.git` (a directory, a file or anything else), found by a
 * walk that follows no symlink and does not descend into what it finds. Bounded: `limit` entries.
 */
export function findNestedGit(root: string, limit = 200_000): { found: NestedRepository[]; complete: boolean } {
  const found: NestedRepository[] = [];
  const stack = [''];
  let seen = 0;
  while (stack.length > 0) {
    const relative = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > limit) return { found, complete: false };
    const git = relative === '' ? undefined : entries.find((entry) => entry.name === '.git');
    if (git) {
      found.push({ path: relative, kind: git.isDirectory() ? 'git-directory' : 'git-file' });
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !(relative === '' && entry.name === '.git')) stack.push(relative === '' ? entry.name : `${relative}/${entry.name}`);
    }
  }
  return { found, complete: true };
}

/** An untracked file's text as a diff of a new file, read without following a symlink and without blocking on a FIFO. */
function untrackedText(checkout: string, relative: string, budget: number): { text: string; mode: string | null } {
  const full = path.join(checkout, relative);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(full);
  } catch {
    return { text: '', mode: null };
  }
  const header = `new file ${quotePath(relative)}`;
  if (stat.isSymbolicLink()) {
    let target = '?';
    try {
      target = fs.readlinkSync(full);
    } catch {
      // shown as "?"
    }
    return { text: `${header} (symbolic link → ${quotePath(target)})\n`, mode: MODE_SYMLINK };
  }
  if (!stat.isFile()) return { text: `${header} (not a regular file)\n`, mode: null };
  const mode = stat.mode & 0o111 ? MODE_EXECUTABLE : '100644';
  let fd: number;
  try {
    fd = fs.openSync(full, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return { text: `${header} (unreadable)\n`, mode };
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, Math.min(stat.size, budget)));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const content = buffer.subarray(0, read);
    if (content.includes(0)) return { text: `${header} (binary, ${stat.size} bytes, mode ${mode})\n`, mode };
    const lines = content.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const cut = read < stat.size ? `\n… (${stat.size - read} more bytes not shown)` : '';
    return { text: `${header} (mode ${mode}, ${stat.size} bytes)\n${lines.map((line) => `+${line}`).join('\n')}${cut}\n`, mode };
  } finally {
    fs.closeSync(fd);
  }
}

/** A path as shown to a person: as it is, or as a JSON string (`"a\u001b[31m"`) when it holds a control character. */
export function quotePath(p: string): string {
  return terminalText(p, 'line') === p ? p : terminalJson(p);
}

/** Reads `git config --list -z` records (`key\nvalue\0`). */
function parseConfigList(buffer: Buffer): { key: string; value: string }[] {
  return nulFields(buffer).map((record) => {
    const newline = record.indexOf('\n');
    return newline < 0 ? { key: record, value: '' } : { key: record.slice(0, newline), value: record.slice(newline + 1) };
  });
}

/** The armed hooks in a hooks directory: executable regular files that are not git's samples. */
function armedHooks(dir: string, label: string): { kind: 'hook'; name: string; value: string }[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => !entry.name.endsWith('.sample') && (entry.isFile() || entry.isSymbolicLink()))
      .filter((entry) => {
        try {
          return (fs.statSync(path.join(dir, entry.name)).mode & 0o111) !== 0;
        } catch {
          return entry.isSymbolicLink();
        }
      })
      .map((entry) => ({ kind: 'hook' as const, name: `${label}/${entry.name}`, value: 'runs on plain git commands' }));
  } catch {
    return [];
  }
}

/** The operator's own identity and ignore file, from their global git config (read only: `git config --get` runs nothing). */
async function operatorSettings(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<[string, string][]> {
  const settings: [string, string][] = [];
  const base: SafeGit = {
    configArgs: [],
    env: {
      ...(Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('GIT_') || k === 'GIT_CONFIG_GLOBAL')) as Record<string, string>),
      GIT_CONFIG_NOSYSTEM: '1',
    },
  };
  for (const key of ['user.name', 'user.email', 'core.excludesFile']) {
    const { stdout } = await runGit(
      base,
      path.parse(process.cwd()).root,
      ['config', '--global', '--includes', ...(key === 'core.excludesFile' ? ['--path'] : []), '--get', key],
      {
        timeoutMs,
        allowFail: true,
        raw: true,
      },
    );
    const value = stdout.toString('utf8').trim();
    if (value !== '') settings.push([key, value]);
  }
  return settings;
}

/**
 * Reviews the checkout: its changes against HEAD (tracked and untracked), the findings by category,
 * nested repositories, what plain git would run here; with `commitMessage`, then commits them.
 */
export async function review(options: ReviewOptions): Promise<ReviewReport> {
  const checkout = path.resolve(options.checkout);
  const timeoutMs = options.timeoutMs ?? 300_000;
  const maxDiff = options.maxDiffBytes ?? DEFAULT_MAX_DIFF_BYTES;
  const env = options.env ?? process.env;
  let rootStat: fs.Stats;
  try {
    rootStat = fs.statSync(checkout);
  } catch {
    throw new ReviewError(`${quotePath(checkout)} does not exist; pass --checkout <the checkout's root>, or set AGENT_TEAMS_CHECKOUT`);
  }
  if (!rootStat.isDirectory()) throw new ReviewError(`${quotePath(checkout)} is not a directory; pass --checkout <the checkout's root directory>`);
  const gitDir = path.join(checkout, '.git');
  if (!fs.existsSync(gitDir)) {
    throw new ReviewError(
      `${quotePath(checkout)} is not a git repository (no .git at its root); pass --checkout <the checkout's root>, ` +
        'or set AGENT_TEAMS_CHECKOUT, or initialize it (git init, git commit) before starting a Team',
    );
  }
  // The config's keys, read (never run) with every config file but the checkout's off: they name the drivers to turn off.
  // Without the -c pairs (git config runs nothing), so that the list is the checkout's own.
  const bare = safeGit(checkout, gitDir, [], env);
  const config = parseConfigList(
    (await runGit(bare, checkout, ['--no-pager', 'config', '--includes', '--list', '-z'], { timeoutMs, allowFail: true, raw: true })).stdout,
  );
  const safe = safeGit(
    checkout,
    gitDir,
    config.map((entry) => entry.key),
    env,
  );
  const git = (args: string[], opts: { maxBytes?: number; allowFail?: boolean } = {}) => runGit(safe, checkout, args, { timeoutMs, ...opts });

  const headOut = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { allowFail: true });
  const head = headOut.stdout.toString('utf8').trim() || null;
  const base = head ?? EMPTY_TREE;
  const diffFlags = ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all', '--no-color'];

  const tracked = parseRaw((await git(['diff', base, '--raw', '-z', '--no-renames', '--no-abbrev', ...diffFlags, '--'])).stdout);
  const untrackedNames = nulFields((await git(['ls-files', '-z', '--others', '--exclude-standard'])).stdout);
  const nestedUntracked = untrackedNames.filter((name) => name.endsWith('/')).map((name) => name.slice(0, -1));
  const untrackedFiles = untrackedNames.filter((name) => !name.endsWith('/'));

  // package.json before and after: HEAD's blob by cat-file (no textconv, no filter), the checkout's file read directly.
  const readHead = async (p: string): Promise<string | null> => {
    if (!head) return null;
    const out = await git(['cat-file', 'blob', `${head}:${p}`], { allowFail: true, maxBytes: 4 * 1024 * 1024 });
    return out.stdout.length > 0 ? out.stdout.toString('utf8') : null;
  };
  const readWorktree = (p: string): string | null => {
    try {
      const fd = fs.openSync(path.join(checkout, p), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd, 'utf8') : null;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return null;
    }
  };

  // The patch first, then the untracked files' text, within one bound.
  const stat = await git(['diff', base, '--stat=200', ...diffFlags, '--'], { maxBytes: Math.max(1024, Math.floor(maxDiff / 4)) });
  const patch = await git(['diff', base, '--patch', ...diffFlags, '--'], { maxBytes: maxDiff });
  let truncated = stat.truncated || patch.truncated;
  let budget = maxDiff - patch.stdout.length;
  const untrackedBlocks: string[] = [];
  const changes: ChangedPath[] = [...tracked];
  for (const name of untrackedFiles) {
    const { text, mode } = untrackedText(checkout, name, Math.max(0, budget));
    if (text.length > budget) truncated = true;
    if (budget > 0) untrackedBlocks.push(text.length > budget ? `${text.slice(0, budget)}\n… (cut)\n` : text);
    budget -= text.length;
    changes.push({ path: name, status: 'untracked', oldMode: null, newMode: mode });
  }
  for (const change of changes) {
    if (change.path === 'package.json' || change.path.endsWith('/package.json')) {
      change.scriptsChanged = scriptsChanged(await readHead(change.path), change.status === 'deleted' ? null : readWorktree(change.path));
    }
  }

  const hooksPathEntry = [...config].reverse().find((entry) => entry.key.toLowerCase() === 'core.hookspath');
  const hooksPath = hooksPathEntry && !path.isAbsolute(hooksPathEntry.value) ? path.posix.normalize(hooksPathEntry.value) : undefined;
  const findings = categorize(changes, hooksPath);

  // Index entries git diff skips: assume-unchanged (lowercase tag) and skip-worktree (S).
  for (const record of nulFields((await git(['ls-files', '-v', '-z'])).stdout)) {
    const tag = record.slice(0, 1);
    if (/[a-z]/.test(tag) || tag === 'S') {
      findings.push({ category: 'hidden-from-diff', path: record.slice(2), detail: tag === 'S' ? 'skip-worktree' : 'assume-unchanged' });
    }
  }

  // Nested repositories: gitlinks of the index and HEAD (compared by commit, never entered), and every .git below the root.
  const indexLinks = gitlinks((await git(['ls-files', '-s', '-z'])).stdout, 'index');
  const headLinks = head ? gitlinks((await git(['ls-tree', '-r', '-z', head])).stdout, 'tree') : new Map<string, string>();
  const nested: NestedRepository[] = [];
  for (const p of new Set([...indexLinks.keys(), ...headLinks.keys()])) {
    const [commit, headCommit] = [indexLinks.get(p) ?? null, headLinks.get(p) ?? null];
    nested.push({ path: p, kind: 'gitlink', commit, headCommit });
    if (commit !== headCommit) {
      findings.push({
        category: 'nested-repository',
        path: p,
        detail: headCommit === null ? `new gitlink to commit ${commit}` : commit === null ? 'gitlink removed' : `gitlink moved ${headCommit} → ${commit}`,
      });
    }
  }
  const walk = findNestedGit(checkout);
  for (const repo of walk.found) {
    nested.push(repo);
    findings.push({
      category: 'nested-repository',
      path: repo.path,
      detail: `holds its own .git (${repo.kind === 'git-directory' ? 'a directory' : 'a file'}): not entered`,
    });
  }
  if (!walk.complete) findings.push({ category: 'nested-repository', path: '.', detail: 'the search for nested .git stopped after 200000 entries' });

  // What plain git would run here.
  const gitRunners: ReviewReport['gitRunners'] = config
    .filter((entry) => runsProgram(entry.key, entry.value))
    .map((entry) => ({ kind: 'config' as const, name: entry.key, value: entry.value }));
  gitRunners.push(...armedHooks(path.join(gitDir, 'hooks'), '.git/hooks'));
  if (hooksPathEntry) gitRunners.push(...armedHooks(path.resolve(checkout, hooksPathEntry.value), `core.hooksPath ${hooksPathEntry.value}`));

  const statText = [
    stat.stdout.toString('utf8').trimEnd(),
    ...untrackedFiles.map((name) => ` ${quotePath(name)} (untracked)`),
    ...nestedUntracked.map((name) => ` ${quotePath(name)}/ (untracked nested repository, not entered)`),
  ]
    .filter((line) => line !== '')
    .join('\n');
  const report: ReviewReport = {
    checkout,
    head,
    changes,
    findings,
    nested,
    gitRunners,
    stat: statText,
    diff: `${patch.stdout.toString('utf8')}${untrackedBlocks.join('')}`,
    truncated,
  };
  if (options.commitMessage !== undefined) report.commit = await commit(options.commitMessage, { git, config, nested, env, timeoutMs });
  return report;
}

/** Commits the checkout's changes (git add -A, then git commit --no-verify), nested repositories left out, with the same settings off. */
async function commit(
  message: string,
  ctx: {
    git: (args: string[], opts?: { allowFail?: boolean }) => Promise<GitResult>;
    config: { key: string; value: string }[];
    nested: NestedRepository[];
    env: NodeJS.ProcessEnv;
    timeoutMs: number;
  },
): Promise<{ sha: string; message: string; excluded: string[] }> {
  if (message.trim() === '') throw new ReviewError('the commit message is empty; pass --commit -m <message>');
  // Config-based hooks (hook.<name>.command, newer git) are not covered by core.hooksPath: refuse rather than guess.
  const configHooks = ctx.config.filter((entry) => entry.key.toLowerCase().startsWith('hook.'));
  if (configHooks.length > 0) {
    throw new ReviewError(
      `the checkout's git config defines hooks by hook.* (${configHooks.map((e) => quotePath(e.key)).join(', ')}); ` +
        'remove them from .git/config, then review again before committing',
    );
  }
  // Nested repositories are left as the index holds them: adding one would read its repository.
  const excluded = [...new Set(ctx.nested.map((repo) => repo.path))];
  // The operator's global identity and ignore file, where the checkout's own config does not set them (as git's precedence has it).
  const local = new Set(ctx.config.map((entry) => entry.key.toLowerCase()));
  const identity = (await operatorSettings(ctx.env, ctx.timeoutMs))
    .filter(([key]) => !local.has(key.toLowerCase()))
    .flatMap(([key, value]) => ['-c', `${key}=${value}`]);
  const headOf = async (): Promise<string> => (await ctx.git(['rev-parse', '--verify', '--quiet', 'HEAD'], { allowFail: true })).stdout.toString('utf8').trim();
  const before = await headOf();
  await ctx.git([...identity, 'add', '-A', '--', '.', ...excluded.map((p) => `:(exclude,literal)${p}`)]);
  const result = await ctx.git([...identity, 'commit', '--no-verify', '--no-gpg-sign', '--cleanup=strip', '-q', '-m', message], { allowFail: true });
  const sha = await headOf();
  if (result.code !== 0 || sha === before) {
    const why = `${result.stdout.toString('utf8')} ${result.stderr}`.trim().split('\n').slice(-3).join(' ');
    throw new ReviewError(
      `nothing was committed (git commit: ${why || 'no output'}); if git names no identity, set user.name and user.email in your global config`,
    );
  }
  return { sha, message, excluded };
}

/** The review as text for a person (the CLI passes it through terminalText too). */
export function formatReview(report: ReviewReport): string {
  const lines: string[] = [`review of ${quotePath(report.checkout)} against ${report.head ?? 'an empty tree (no commit yet)'}`, ''];
  lines.push(`changes (${report.changes.length}):`);
  lines.push(report.stat === '' ? '  (none)' : report.stat);
  lines.push('');
  const byCategory = new Map<Category, Finding[]>();
  for (const finding of report.findings) byCategory.set(finding.category, [...(byCategory.get(finding.category) ?? []), finding]);
  if (byCategory.size === 0) lines.push('nothing changed that a tool runs');
  for (const [category, findings] of byCategory) {
    lines.push(`! ${CATEGORY_TITLES[category]}:`);
    for (const finding of findings) lines.push(`    ${quotePath(finding.path)}: ${terminalText(finding.detail, 'line')}`);
  }
  if (report.gitRunners.length > 0) {
    lines.push('', '! plain git in this checkout would run (review turned all of it off):');
    for (const runner of report.gitRunners) lines.push(`    ${quotePath(runner.name)} = ${quotePath(runner.value)}`);
  }
  lines.push('', `diff${report.truncated ? ' (cut at the size bound)' : ''}:`, terminalText(report.diff, 'block').trimEnd() || '  (empty)');
  if (report.commit) {
    lines.push('', `committed ${report.commit.sha} with hooks, filters and drivers off`);
    if (report.commit.excluded.length > 0)
      lines.push(`nested repositories left as the index holds them (not added): ${report.commit.excluded.map(quotePath).join(', ')}`);
  } else {
    lines.push('', 'nothing was run; commit these changes with: agent-teams review --commit -m <message>');
  }
  return lines.join('\n');
}
