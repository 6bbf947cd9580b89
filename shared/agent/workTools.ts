/**
 * Work tools: what a member uses on the shared checkout (read, write, edit files, run bash).
 * Pure contracts only (names, model-facing descriptions, zod input and result schemas, limits);
 * the activities in activities/tools/ bind them with `defineTool` and run them on disk.
 *
 * Concurrency contract: every file read returns `version`, the sha256 of the file's bytes; writes
 * and edits must pass the version they are based on and fail with StaleVersion when the file has
 * changed since, so two members never silently overwrite each other. Writes made through bash
 * bypass this check.
 */
import { z } from 'zod';

export type { RunWorkToolInput, RunWorkToolOutput } from '../contract/activities';

export const WORK_TOOL_LIMITS = {
  /** read_file returns at most this many lines per call. */
  readMaxLines: 2000,
  /** read_file returns at most this many bytes (UTF-8) of content per call. */
  readMaxBytes: 100_000,
  /** Files larger than this are not read, written or edited by the file tools. */
  maxFileBytes: 10 * 1024 * 1024,
  /**
   * The file tools' walk beneath the checkout (activities/tools/beneath.ts), per call: components
   * resolved (symlink targets and `..` included), directories below the root (each one an open
   * descriptor while the call runs), symlinks followed, and the bytes of one name. Over any of
   * them: PathTooComplex.
   */
  pathMaxComponents: 4096,
  pathMaxDepth: 256,
  pathMaxSymlinks: 40,
  nameMaxBytes: 255,
  /** bash keeps at most the last this-many bytes of stdout and of stderr. */
  bashOutputBytes: 32 * 1024,
  bashDefaultTimeoutMs: 60_000,
  bashMaxTimeoutMs: 600_000,
} as const;

/** The failure types the work tools report (as `{"error":type,"message":...}` results). */
export const WORK_TOOL_ERRORS = {
  staleVersion: 'StaleVersion',
  editTextNotFound: 'EditTextNotFound',
  editTextAmbiguous: 'EditTextAmbiguous',
  pathOutsideCheckout: 'PathOutsideCheckout',
  fileNotFound: 'FileNotFound',
  isADirectory: 'IsADirectory',
  notADirectory: 'NotADirectory',
  permissionDenied: 'PermissionDenied',
  fileTooLarge: 'FileTooLarge',
  workingDirectoryMissing: 'WorkingDirectoryMissing',
  unknownTool: 'UnknownTool',
  /** write_file and edit_file: git metadata (a `.git` directory, the hooks directory), which runs code on the host later. */
  protectedPath: 'ProtectedPath',
  /** A path over the walk's bounds (WORK_TOOL_LIMITS.path*, nameMaxBytes): too many components, directories, symlinks, or too long a name. */
  pathTooComplex: 'PathTooComplex',
  /** The filesystem or the worker failed the call (EIO, ENOSPC, out of descriptors, ...); the message names the errno, never a host path. */
  fileSystemError: 'FileSystemError',
  /** A tool failed in a way it has no type for; the message says which tool, never a host path. */
  toolFailed: 'ToolFailed',
  /** bash only: the sandbox (bubblewrap) cannot start on this worker; nothing ran. */
  sandboxUnavailable: 'SandboxUnavailable',
  /** bash only: the command hit a limit of its sandbox (memory, processes, a tmpfs, output, ...); the message names it and its value. */
  sandboxLimit: 'SandboxLimit',
} as const;

/** A typed tool failure: `runToolCall` reports `type` and `message` to the model. */
export class WorkToolError extends Error {
  override readonly name = 'WorkToolError';
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const VERSION = /^sha256:[0-9a-f]{64}$/;
const version = z.string().regex(VERSION);
const pathInput = z.string().min(1).describe('file path, relative to your current directory (absolute paths must lie inside the checkout)');
const pathResult = z.string().min(1).describe('the file, relative to the checkout root');

export const readFileContract = {
  name: 'read_file' as const,
  description:
    'Read a text file of the shared checkout. Returns its content (at most 2000 lines / 100 KB per call; truncated: true means more of the file follows, ' +
    'continue with offset), totalLines, and version: pass that version to write_file or edit_file when you change the file.',
  input: z.strictObject({
    path: pathInput,
    offset: z.number().int().min(1).optional().describe('first line to return, 1-based (default 1)'),
    limit: z.number().int().min(1).optional().describe('number of lines to return (default and maximum 2000)'),
  }),
  result: z.strictObject({
    path: pathResult,
    content: z.string(),
    version,
    totalLines: z.number().int().min(0),
    truncated: z.boolean(),
  }),
};

export const writeFileContract = {
  name: 'write_file' as const,
  description:
    'Create or replace a whole file (parent directories are created). Pass the version read_file returned, or null to create a file that must not exist yet. ' +
    'On StaleVersion the file changed since you read it: read_file again and rebase your change. Prefer edit_file for small changes.',
  input: z.strictObject({
    path: pathInput,
    content: z.string().describe('the complete new file content'),
    version: z.string().min(1).nullable().describe('the version read_file returned, or null to create a new file'),
  }),
  result: z.strictObject({
    path: pathResult,
    version: version.describe('the new version of the file'),
    bytes: z.number().int().min(0),
  }),
};

export const editFileContract = {
  name: 'edit_file' as const,
  description:
    'Replace oldText with newText in a file. oldText must match the file exactly (whitespace included) and occur exactly once unless replaceAll is true; ' +
    'include surrounding lines to make it unique. Pass the version read_file returned; on StaleVersion re-read and rebase your change.',
  input: z.strictObject({
    path: pathInput,
    version: z.string().min(1).describe('the version read_file (or your last write/edit of this file) returned'),
    oldText: z.string().min(1).describe('exact text to replace'),
    newText: z.string().describe('replacement text'),
    replaceAll: z.boolean().optional().describe('replace every occurrence (default false)'),
  }),
  result: z.strictObject({
    path: pathResult,
    version: version.describe('the new version of the file'),
    replacements: z.number().int().min(1),
  }),
};

export const bashContract = {
  name: 'bash' as const,
  description:
    'Run a bash command in your current directory of the shared checkout (a cd stays with you for later calls; cwd in the result is where you are). ' +
    'Output keeps the last 32 KB of stdout and of stderr (truncated: true when cut). ' +
    'Default timeout 60 s, at most 600 s; on timeout the process group is killed. ' +
    'No stdin. Background processes are not waited for; redirect their output to a file. ' +
    'Changing files here bypasses version checks: use read_file/write_file/edit_file for files other members may edit.',
  input: z.strictObject({
    command: z.string().min(1).describe('bash script to run'),
    timeoutMs: z.number().int().min(1).max(WORK_TOOL_LIMITS.bashMaxTimeoutMs).optional().describe('timeout in milliseconds (default 60000, max 600000)'),
  }),
  result: z.strictObject({
    exitCode: z.number().int().nullable().describe('null when killed by a signal (e.g. on timeout)'),
    stdout: z.string(),
    stderr: z.string(),
    truncated: z.boolean(),
    timedOut: z.boolean(),
    cwd: z.string().min(1).describe('your directory after the command, relative to the checkout root ("." is the root)'),
    notice: z.string().optional(),
  }),
};

export const WORK_TOOL_CONTRACTS = [readFileContract, writeFileContract, editFileContract, bashContract] as const;

export type WorkToolName = (typeof WORK_TOOL_CONTRACTS)[number]['name'];

export const WORK_TOOL_NAMES: readonly WorkToolName[] = WORK_TOOL_CONTRACTS.map((c) => c.name);

export type ReadFileInput = z.output<typeof readFileContract.input>;
export type ReadFileResult = z.output<typeof readFileContract.result>;
export type WriteFileInput = z.output<typeof writeFileContract.input>;
export type WriteFileResult = z.output<typeof writeFileContract.result>;
export type EditFileInput = z.output<typeof editFileContract.input>;
export type EditFileResult = z.output<typeof editFileContract.result>;
export type BashInput = z.output<typeof bashContract.input>;
export type BashResult = z.output<typeof bashContract.result>;
