/**
 * Profiles and toolsets: which tools a session's model sees, and which executor runs each.
 *  - default profile (toolset `default`): work tools + ordinary subagents and the legacy
 *    continuable controls. No Team tools: simple tasks pay no delegation latency or tokens.
 *  - team profile (toolset `team`, opt-in): work tools + Team tools; subagent, subagent_fork and
 *    the overlapping legacy controls are disabled (wait_agent is the Team one).
 *  - toolset `subagent`: what an ordinary subagent sees (work tools only).
 * Pure: the workflow dispatches by name and the model-call activity renders the same specs.
 */
import type { ProfileName } from '../contract';
import type { ToolSpec } from '../contract/model';
import { toolSpec } from '../tools/tool';
import { DEFAULT_POLICY, TEAM_POLICY } from './policy';
import { SUBAGENT_TOOLS } from './subagentTools';
import { TEAM_TOOLS } from './teamTools';
import { WORK_TOOL_CONTRACTS } from './workTools';

export const TOOLSETS = ['default', 'team', 'subagent'] as const;
export type Toolset = (typeof TOOLSETS)[number];
export type ToolKind = 'work' | 'team' | 'subagent';

interface Described {
  name: string;
  description: string;
  input: Parameters<typeof toolSpec>[0]['input'];
}

const WORK = WORK_TOOL_CONTRACTS as readonly Described[];
const TOOLS_BY_SET: Record<Toolset, { kind: ToolKind; tools: readonly Described[] }[]> = {
  default: [
    { kind: 'work', tools: WORK },
    { kind: 'subagent', tools: SUBAGENT_TOOLS },
  ],
  team: [
    { kind: 'work', tools: WORK },
    { kind: 'team', tools: TEAM_TOOLS },
  ],
  subagent: [{ kind: 'work', tools: WORK }],
};

export function toolsetOf(profile: ProfileName): Toolset {
  return profile === 'team' ? 'team' : 'default';
}

export function policyOf(toolset: Toolset): string {
  return toolset === 'team' ? TEAM_POLICY : DEFAULT_POLICY;
}

export function isToolset(value: string): value is Toolset {
  return (TOOLSETS as readonly string[]).includes(value);
}

/** Tool names of a toolset, in catalog order. */
export function toolNames(toolset: Toolset): string[] {
  return TOOLS_BY_SET[toolset].flatMap((group) => group.tools.map((t) => t.name));
}

/** Which executor runs `name` in this toolset; undefined when the toolset has no such tool. */
export function toolKind(toolset: Toolset, name: string): ToolKind | undefined {
  return TOOLS_BY_SET[toolset].find((group) => group.tools.some((t) => t.name === name))?.kind;
}

const specCache: Partial<Record<Toolset, ToolSpec[]>> = {};
/** The model-facing catalog of a toolset (name, description, JSON schema of the input). */
export function toolSpecsFor(toolset: string): ToolSpec[] {
  if (!isToolset(toolset)) throw new TypeError(`unknown toolset "${toolset}"; expected one of ${TOOLSETS.join(', ')}`);
  return (specCache[toolset] ??= TOOLS_BY_SET[toolset].flatMap((group) => group.tools.map((t) => toolSpec(t))));
}
