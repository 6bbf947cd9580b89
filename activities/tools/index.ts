/**
 * The work tools as a Temporal activity: `runWorkTool` runs one model tool call (read_file,
 * write_file, edit_file, bash) on the shared checkout under `root` and returns the model-facing
 * result text plus the member's directory afterwards. This module only builds the tools and
 * dispatches a call to one of them:
 *
 * - paths.ts: paths resolve against the member's directory (`cwd`, relative to root); anything that
 *   leaves the checkout, lexically or through a symlink, fails with PathOutsideCheckout;
 * - files.ts: read_file, write_file and edit_file, through descriptors proven inside the checkout
 *   (beneath.ts), with version checks, per-file locks and atomic writes; git metadata is not written;
 * - bash.ts: bash under the bubblewrap sandbox of bashSandbox.ts, bounded output, `cd` that persists.
 */
import * as path from 'node:path';
import { type RunWorkToolInput, type RunWorkToolOutput, WORK_TOOL_ERRORS as E, WORK_TOOL_NAMES, WorkToolError } from '../../shared/agent/workTools';
import { type AnyTool, runToolCall } from '../../shared/tools/tool';
import { createBashTool } from './bash';
import type { BashSandboxConfig } from './bashSandbox';
import { defaultHeartbeat, type WorkToolContext } from './context';
import { createFileTools } from './files';
import { assertCheckoutIsNotWorkerCode } from './checkoutGuard';
import { configuredHooksDirectory, gitDirectoryOf } from './gitProtection';
import { checkoutPaths } from './paths';
import { sandboxIdentity } from './sandboxIdentity';

/** The configured hooks directory, root-relative, when the repository names one inside the checkout. */
function protectedHooksPrefixes(rootReal: string): string[][] {
  const gitDir = gitDirectoryOf(rootReal);
  const hooks = gitDir === null ? null : configuredHooksDirectory(rootReal, gitDir);
  return hooks === null ? [] : [path.relative(rootReal, hooks).split(path.sep)];
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
  const fileTools = createFileTools(paths, { protectedPrefixes: protectedHooksPrefixes(paths.real), ...owner });
  const tools = new Map<string, AnyTool<WorkToolContext>>([...fileTools, bash].map((tool) => [tool.name, tool as AnyTool<WorkToolContext>]));

  async function runWorkTool(input: RunWorkToolInput): Promise<RunWorkToolOutput> {
    const tool = tools.get(input.tool);
    const base = path.resolve(paths.resolved, input.cwd || '.');
    const cwdInside = paths.inRoot(base);
    const cwd = cwdInside ? paths.display(base) : '.';
    if (!tool) {
      return {
        ok: false,
        text: JSON.stringify({
          error: E.unknownTool,
          message: `there is no work tool named ${JSON.stringify(input.tool)}; the work tools are ${WORK_TOOL_NAMES.join(', ')}`,
        }),
        cwd,
      };
    }
    if (!cwdInside) {
      return {
        ok: false,
        text: JSON.stringify({
          error: E.pathOutsideCheckout,
          message: `your directory ${input.cwd} is outside the checkout; you are back at the checkout root (".")`,
        }),
        cwd: '.',
      };
    }
    try {
      await paths.containedRealPath(base, cwd);
    } catch (error) {
      if (!(error instanceof WorkToolError)) throw error;
      return {
        ok: false,
        text: JSON.stringify({ error: error.type, message: `your directory ${cwd} leads outside the checkout; you are back at the checkout root (".")` }),
        cwd: '.',
      };
    }
    const context: WorkToolContext = { base, cwd, ...(options.heartbeat ? { heartbeat: options.heartbeat } : defaultHeartbeat()) };
    const outcome = await runToolCall(tool, input.argumentsJson, context);
    return { ok: outcome.ok, text: outcome.text, cwd: context.nextCwd ?? cwd };
  }

  return { runWorkTool };
}
