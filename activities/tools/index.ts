/**
 * The work tools as a Temporal activity: `runWorkTool` runs one model tool call (read_file,
 * write_file, edit_file, bash) on the shared checkout under `root` and returns the model-facing
 * result text plus the member's directory afterwards. This module only builds the tools and
 * dispatches a call to one of them:
 *
 * - paths.ts: paths resolve against the member's directory (`cwd`, relative to root); anything that
 *   leaves the checkout, lexically or through a symlink, fails with PathOutsideCheckout; the
 *   member's directory is checked through the bounded descriptor walk of beneath.ts;
 * - files.ts: read_file, write_file and edit_file, through descriptors proven inside the checkout
 *   (beneath.ts), with version checks, per-file locks and atomic writes; git metadata is not written;
 * - bash.ts: bash under the bubblewrap sandbox of bashSandbox.ts, bounded output, `cd` that persists.
 *
 * Nothing but a cancellation leaves `runWorkTool` as an exception: whatever a tool throws without a
 * type becomes FileSystemError or ToolFailed, and every failure's message has the checkout's host
 * path made root-relative and its control characters replaced (paths.ts, hostFree), so neither the
 * SDK's "Activity failed" line nor the model sees a raw name or a host path.
 */
import * as path from 'node:path';
import { ActivityFailure, CancelledFailure } from '@temporalio/common';
import { type RunWorkToolInput, type RunWorkToolOutput, WORK_TOOL_ERRORS as E, WORK_TOOL_NAMES, WorkToolError } from '../../shared/agent/workTools';
import { terminalJson } from '../../shared/text/inertText';
import { type AnyTool, runToolCall } from '../../shared/tools/tool';
import { resolveDirectoryBeneath } from './beneath';
import { createBashTool } from './bash';
import type { BashSandboxConfig } from './bashSandbox';
import { defaultHeartbeat, type WorkToolContext } from './context';
import { createFileTools } from './files';
import { assertCheckoutIsNotWorkerCode } from './checkoutGuard';
import { protectedHooksPrefixes } from './gitProtection';
import { checkoutPaths, errnoCode, messageName } from './paths';
import { sandboxIdentity } from './sandboxIdentity';

/** Whether `error` is the activity's cancellation (an interrupt, a disposal): it must stop the turn, not become a result. */
function isCancellation(error: unknown): boolean {
  return error instanceof CancelledFailure || (error instanceof ActivityFailure && error.cause instanceof CancelledFailure);
}

/** A failure without a type, as the model may see it: its errno code at most, never its message. */
function untyped(what: string, error: unknown): WorkToolError {
  const code = errnoCode(error);
  return code !== undefined
    ? new WorkToolError(E.fileSystemError, `${what} failed on this worker (${code}); try again, and tell the Lead if it keeps failing`)
    : new WorkToolError(E.toolFailed, `${what} failed on this worker; try again, and tell the Lead if it keeps failing`);
}

export { CHECKOUT_IS_WORKER_CODE, CheckoutRefused } from './checkoutGuard';
export { CHECKOUT_ROOT_ENV, checkoutRootFromEnv } from './paths';
export { WorkToolError };

export interface WorkToolOptions {
  /** The checkout; must exist, and be neither in nor around this worker's package (CheckoutRefused). */
  root: string;
  /** Called periodically while bash runs; default: the current activity's heartbeat, if any. */
  heartbeat?: () => void;
  heartbeatIntervalMs?: number;
  /**
   * The worker environment bash draws on; default: this process's. Sandboxed, bash sees only the
   * allow-list from it; unsandboxed, all of it without MODEL_API_KEY and TEMPORAL_API_KEY.
   */
  env?: Record<string, string | undefined>;
  /** The bash sandbox; default: from AGENT_TEAMS_BASH_SANDBOX / _NETWORK / _ENV (bubblewrap on). */
  sandbox?: Partial<BashSandboxConfig>;
}

export function createWorkToolActivities(options: WorkToolOptions) {
  assertCheckoutIsNotWorkerCode(options.root);
  const paths = checkoutPaths(options.root);
  const bash = createBashTool({
    rootReal: paths.real,
    env: options.env ?? process.env,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1000,
  });
  // A worker running as root writes files as bash's user, so bash can change them afterwards.
  const identity = sandboxIdentity(paths.real, options.env ?? process.env);
  const owner = identity.ok && identity.run !== null ? { owner: identity.run } : {};
  // The hooks directories git is configured with, found afresh for every write (gitProtection.ts).
  const fileTools = createFileTools(paths, { protectedPrefixes: () => protectedHooksPrefixes(paths.real), ...owner });
  const tools = new Map<string, AnyTool<WorkToolContext>>([...fileTools, bash].map((tool) => [tool.name, guarded(tool as AnyTool<WorkToolContext>)]));

  const roots = [paths.resolved, paths.real];
  const failure = (type: string, message: string) => JSON.stringify({ error: type, message: paths.hostFree(message) });

  /**
   * The tool, with whatever it throws that has no type (a raw errno, a bug) made a typed failure:
   * its text quotes neither the error's message (it names host paths, `/proc/self/fd/…`, and a
   * member's names raw) nor anything else of the host's. A cancellation passes through.
   */
  function guarded(tool: AnyTool<WorkToolContext>): AnyTool<WorkToolContext> {
    return {
      ...tool,
      async execute(input, context) {
        try {
          return await tool.execute(input, context);
        } catch (error) {
          if (error instanceof WorkToolError || isCancellation(error) || context.signal?.aborted) throw error;
          throw untyped(tool.name, error);
        }
      },
    };
  }

  async function dispatch(input: RunWorkToolInput): Promise<RunWorkToolOutput> {
    const tool = tools.get(input.tool);
    const base = path.resolve(paths.resolved, input.cwd || '.');
    const cwdInside = paths.inRoot(base);
    const cwd = cwdInside ? paths.display(base) : '.';
    if (!tool) {
      return {
        ok: false,
        text: failure(E.unknownTool, `there is no work tool named ${terminalJson(input.tool)}; the work tools are ${WORK_TOOL_NAMES.join(', ')}`),
        cwd,
      };
    }
    if (!cwdInside) {
      return {
        ok: false,
        text: failure(E.pathOutsideCheckout, `your directory ${messageName(input.cwd)} is outside the checkout; you are back at the checkout root (".")`),
        cwd: '.',
      };
    }
    // The member's directory, through the bounded descriptor walk (no path of a member's is handed
    // to the kernel to follow): a missing one is the tool's to report (bash: WorkingDirectoryMissing).
    try {
      await resolveDirectoryBeneath(paths.real, roots, cwd === '.' ? [] : cwd.split('/'), cwd);
    } catch (error) {
      const refused = error instanceof WorkToolError ? error : untyped('the member directory check', error);
      if (refused.type === E.fileSystemError) return { ok: false, text: failure(refused.type, refused.message), cwd };
      if (refused.type !== E.fileNotFound && refused.type !== E.notADirectory) {
        const why = refused.type === E.pathOutsideCheckout ? 'leads outside the checkout' : `cannot be used (${refused.message})`;
        return { ok: false, text: failure(refused.type, `your directory ${messageName(cwd)} ${why}; you are back at the checkout root (".")`), cwd: '.' };
      }
    }
    const context: WorkToolContext = { base, cwd, ...(options.heartbeat ? { heartbeat: options.heartbeat } : defaultHeartbeat()) };
    const outcome = await runToolCall(tool, input.argumentsJson, context);
    return { ok: outcome.ok, text: outcome.ok ? outcome.text : hostFreeFailure(outcome.text), cwd: context.nextCwd ?? cwd };
  }

  /** A failure's text with its message made host-free (paths.ts, hostFree); its other fields as they were. */
  function hostFreeFailure(text: string): string {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') parsed.message = paths.hostFree(parsed.message);
    return JSON.stringify(parsed);
  }

  /** One tool call; nothing but a cancellation leaves it as an exception, and no failure text names a host path. */
  async function runWorkTool(input: RunWorkToolInput): Promise<RunWorkToolOutput> {
    try {
      return await dispatch(input);
    } catch (error) {
      if (isCancellation(error)) throw error;
      const typed = error instanceof WorkToolError ? error : untyped(terminalJson(input.tool), error);
      return { ok: false, text: failure(typed.type, typed.message), cwd: '.' };
    }
  }

  return { runWorkTool };
}
