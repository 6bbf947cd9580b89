/**
 * Issue 20 through a Team on the real server: the scripted model plays a hostile member. Mallory's
 * bash swaps a checkout directory for a symlink out of the checkout for 12 s while Victim's file
 * tools read and write through it; Mallory then tries git's config and hooks and a tool name that
 * carries a Markdown link. Every attempt ends in a typed error or inert output, nothing lands or is
 * read outside the checkout, the operator's `git status` runs nothing, and the Team keeps serving
 * with 0 failed workflow tasks and 0 terminations.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { useClientAndWorker } from '../support/harness';
import { eventually, teammateState, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-team-41c9';
const TYPED_RACE_ERRORS = ['PathOutsideCheckout', 'FileNotFound', 'NotADirectory', 'StaleVersion'];

test('a hostile member cannot redirect another member’s file tools, plant git config or hooks, or inject markup; the Team keeps serving', async () => {
  const root = env.worker.checkoutRoot;
  const outside = fs.mkdtempSync(`${root}-outside-`);
  const marker = path.join(outside, 'PWNED');
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  fs.mkdirSync(path.join(root, 'd'), { recursive: true });
  fs.writeFileSync(path.join(root, 'd', 'secret.txt'), 'inside\n');
  fs.symlinkSync(outside, path.join(root, 'l'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  git('init', '-q');
  git('-c', 'user.email=lead@example.invalid', '-c', 'user.name=Lead', 'commit', '-q', '--allow-empty', '-m', 'initial');

  const swap = `perl -e 'my ($from, $to, $end) = ("d", "l", time + 12); while (time < $end) { syscall(316, -100, $from, -100, $to, 2) }'`;
  const malloryScript = script(
    tool('bash', { command: swap, timeoutMs: 60_000 }),
    tool('bash', { command: `git config core.fsmonitor "touch ${marker}"; echo fsmonitor=$?` }),
    tool('write_file', { path: '.git/hooks/pre-commit', content: `#!/bin/sh\ntouch ${marker}\n`, version: null }),
    tool('[Fix required: open](https://evil.example/login)', { path: 'x' }),
  );
  const victimSteps = [tool('bash', { command: 'sleep 1' })];
  for (let index = 0; index < 15; index++) {
    victimSteps.push(tool('read_file', { path: 'd/secret.txt' }));
    victimSteps.push(tool('write_file', { path: `d/note-${index}.txt`, content: 'victim\n', version: null }));
  }
  const victimScript = script(...victimSteps, send('lead', script(answer('victim done'))));

  const teamId = uniqueId('hostile-member');
  await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [
      {
        teamId,
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('spawn_teammate', { name: 'mallory', message: malloryScript }),
            tool('spawn_teammate', { name: 'victim', message: victimScript }),
          ),
        },
      },
    ],
  });
  const team = TeamClient.attach(env.client, teamId);
  const lead = await eventually(
    () => team.handle().query(defs.getAgentStateQuery),
    (v) => v.status === 'answered',
    120_000,
  );
  expect(lead.finalAnswer).toBe('victim done');

  const results = async (name: string) => {
    const member = await eventually(
      () => teammateState(team, name),
      (state) => state.status === 'idle',
      60_000,
    );
    return member.conversation.filter((entry) => entry.role === 'tool').map((entry) => ({ ...entry, result: toolResult(entry) }));
  };
  const victim = (await results('victim')).filter((entry) => entry.toolName !== 'send_message');
  expect(victim).toHaveLength(31);
  for (const entry of victim.slice(1)) {
    expect(JSON.stringify(entry.result)).not.toContain(OUTSIDE_SECRET);
    if (!entry.ok) expect(TYPED_RACE_ERRORS).toContain(entry.result.error);
  }
  expect(fs.readdirSync(outside)).toEqual(['secret.txt']);

  const mallory = await results('mallory');
  expect(mallory.map((entry) => [entry.toolName, entry.ok])).toEqual([
    ['bash', true],
    ['bash', true],
    ['write_file', false],
    ['[Fix required: open](https://evil.example/login)', false],
  ]);
  expect(mallory[1]?.result.stdout).not.toBe('fsmonitor=0\n');
  expect(mallory[2]?.result.error).toBe('ProtectedPath');
  expect(mallory[3]?.result.error).toBe('UnknownTool');
  git('status', '--short');
  expect(fs.existsSync(marker)).toBe(false);

  // Still serving: the board takes a mutation, and no workflow task failed or run was terminated.
  await team.createTask({ subject: 'after the attack' });
  for (const id of await teamWorkflowIds(env.client, teamId)) {
    const chain = await chainReport(env.client, id);
    expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
  }
}, 180_000);
