/**
 * Keyless snapshots of the tool profiles (no model, no key, no server): the Team profile's policy,
 * tool list and schemas, and the workflows it runs, and the default profile's catalog, which must
 * stay exactly what it was before the Team existed. Regenerate deliberately with
 * `UPDATE_PROFILE_SNAPSHOTS=1 bash scripts/jest.sh test/unit/profiles.test.ts --selectProjects unit` and review the diff.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_POLICY, TEAM_POLICY } from '../../shared/agent/policy';
import { policyOf, toolNames, toolSpecsFor, toolsetOf } from '../../shared/agent/profiles';
import { TEAM_TOOLS } from '../../shared/agent/teamTools';
import * as defs from '../../shared/contract';

const FIXTURES = path.join(__dirname, '..', 'fixtures');

function pinned(file: string, actual: unknown): void {
  const target = path.join(FIXTURES, file);
  if (process.env.UPDATE_PROFILE_SNAPSHOTS === '1') fs.writeFileSync(target, `${JSON.stringify(actual, null, 2)}\n`);
  expect(actual).toEqual(JSON.parse(fs.readFileSync(target, 'utf8')));
}

test('the default profile catalog is exactly what it was before the Team existed, with no Team tools', () => {
  const catalog = { policy: DEFAULT_POLICY, tools: toolSpecsFor(toolsetOf('default')) };
  pinned('default-profile.json', catalog);
  expect(toolNames('default')).toEqual([
    'read_file',
    'write_file',
    'edit_file',
    'bash',
    'subagent',
    'subagent_fork',
    'send_input',
    'wait_agent',
    'close_agent',
  ]);
  for (const teamTool of TEAM_TOOLS.filter((t) => t.name !== 'wait_agent')) expect(toolNames('default')).not.toContain(teamTool.name);
  expect(policyOf('default')).not.toMatch(/Team/);
});

test('the Team profile snapshot pins its policy, tools with schemas, and workflows', () => {
  const snapshot = {
    policy: TEAM_POLICY,
    tools: toolSpecsFor(toolsetOf('team')),
    workflows: { lead: defs.TEAM_LEAD_WORKFLOW_TYPE, teammate: defs.TEAMMATE_WORKFLOW_TYPE, subagent: defs.SUBAGENT_WORKFLOW_TYPE },
  };
  pinned('team-profile.json', snapshot);
  const names = toolNames('team');
  // The Team profile disables subagent, subagent_fork and the overlapping legacy controls.
  for (const disabled of ['subagent', 'subagent_fork', 'send_input', 'close_agent']) expect(names).not.toContain(disabled);
  expect(names).toEqual(
    expect.arrayContaining([
      'spawn_teammate',
      'send_message',
      'create_task',
      'claim_task',
      'set_task_status',
      'list_tasks',
      'wait_agent',
      'interrupt_teammate',
      'lower_budget',
      'read_roster',
    ]),
  );
  expect(names.filter((n) => n === 'wait_agent')).toHaveLength(1);
  // The policy announces the Team and its coordination duties.
  for (const duty of [/partition/i, /writeScopes/, /dependencies/i, /StaleVersion/, /re-read/i, /final diff/i, /tests/i]) expect(TEAM_POLICY).toMatch(duty);
});

test('no tool schema asks a model for a Team id, and every schema is a closed object', () => {
  for (const spec of [...toolSpecsFor('team'), ...toolSpecsFor('default'), ...toolSpecsFor('subagent')]) {
    expect(spec.parameters.type).toBe('object');
    expect(spec.parameters.additionalProperties).toBe(false);
    expect(Object.keys(spec.parameters.properties ?? {})).not.toContain('teamId');
    expect(JSON.stringify(spec)).not.toMatch(/"caller"/);
  }
});
