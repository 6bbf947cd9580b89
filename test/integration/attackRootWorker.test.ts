/**
 * Issue 52 through a Team on the real server, with bash as the checkout's unprivileged owner: the
 * scripted model plays members that shape paths so that the worker, running as root, would remove
 * a directory of the host's, hold thousands of descriptors, read a growing file whole, or quote a
 * name full of terminal escapes and the checkout's host path in an untyped error. The worker's own
 * descriptors and RSS are sampled while they try (it runs in this process). Every attempt fails,
 * nothing outside the checkout changes, and no workflow task fails.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { giveToBash } from '../support/bashUser';
import { useClientAndWorker } from '../support/harness';
import { eventually, teammateState, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const HOST_SECRET = 'HOST-SECRET-team-52';
/** More descriptors than this held at once by the worker during the attack fails the test (docs/security.md). */
const DESCRIPTOR_BOUND = 512;
/**
 * The worker shares this process with jest, the test's clients and the workflow bundles, whose own
 * growth reached 101 MiB in a CI run; one whole read of the 1 GiB file the grower makes would pass
 * 1,024 MiB, so 384 MiB still tells a capped read from a whole one.
 */
const RSS_BOUND = 384 * 1024 * 1024;

/** Samples the worker's open descriptors and RSS until stopped: the largest of each above where they started. */
function sampleWorker() {
  const count = () => fs.readdirSync('/proc/self/fd').length;
  const start = { fds: count(), rss: process.memoryUsage().rss };
  const peak = { fds: 0, rss: 0 };
  const timer = setInterval(() => {
    peak.fds = Math.max(peak.fds, count() - start.fds);
    peak.rss = Math.max(peak.rss, process.memoryUsage().rss - start.rss);
  }, 5);
  timer.unref(); // a failed assertion before the stop must not keep the test run alive
  return () => (clearInterval(timer), peak);
}

test('members shaping paths cannot make the root worker remove, exhaust, read whole or quote anything of the host’s', async () => {
  const root = env.worker.checkoutRoot;
  const host = fs.mkdtempSync(`${root}-host-`);
  const marker = path.join(host, 'FSMONITOR-RAN');
  fs.mkdirSync(path.join(host, 'precious'));
  fs.writeFileSync(path.join(host, 'precious', 'secret.txt'), `${HOST_SECRET}\n`);
  giveToBash(root);
  const escapes = "e$(printf '\\033]52;c;ZXZpbA==\\007\\033[2J')";
  const chain = [
    'mkdir -p d && t=$(printf "d/../%.0s" $(seq 800))',
    'for i in $(seq 0 39); do ln -sfn "${t}l$((i + 1))" "l$i"; done',
    'echo chained > l40',
  ].join('; ');
  const mallory = script(
    tool('bash', { command: `git init -q && git config core.hooksPath x/precious && git config core.fsmonitor 'touch ${marker}'; echo configured=$?` }),
    tool('bash', { command: `ln -s ${host} x; echo linked=$?` }),
    // y → the host's `/`, and the hooks path y/tmp: bound by path, the host's /tmp (and the secret) would show.
    tool('bash', { command: `git init -q && git config core.hooksPath y/tmp && ln -s ${path.relative(root, '/')} y; echo planted=$?` }),
    tool('bash', { command: `cat ${path.join(host, 'precious', 'secret.txt')} 2>&1; echo read=$?` }),
    tool('bash', { command: chain }),
    tool('read_file', { path: 'l0' }),
    tool('bash', { command: `mkdir "${escapes}" && ln -s loop "${escapes}/loop"; echo made=$?` }),
    tool('read_file', { path: `e\u001b]52;c;ZXZpbA==\u0007\u001b[2J/loop/x` }),
    send('lead', script(answer('mallory done'))),
  );
  const grower = script(
    tool('bash', {
      command: 'end=$((SECONDS + 15)); while [ $SECONDS -lt $end ]; do truncate -s 1G big; truncate -s 100 big; done; echo grown',
      timeoutMs: 60_000,
    }),
  );
  const reads = Array.from({ length: 30 }, () => tool('read_file', { path: 'big' }));
  const reader = script(tool('bash', { command: 'sleep 1' }), ...reads, send('lead', script(answer('reader done'))));

  const teamId = uniqueId('attack-root-worker');
  const stop = sampleWorker();
  await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [
      {
        teamId,
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('spawn_teammate', { name: 'grower', message: grower }),
            tool('spawn_teammate', { name: 'reader', message: reader }),
            tool('spawn_teammate', { name: 'mallory', message: mallory }),
          ),
        },
      },
    ],
  });
  const team = TeamClient.attach(env.client, teamId);
  const results = async (name: string) => {
    const member = await eventually(
      () => teammateState(team, name).catch(() => null), // not spawned yet
      (state) => state !== null && state.status === 'idle' && state.conversation.some((entry) => entry.role === 'tool'),
      150_000,
    );
    // A long conversation elides its oldest results ("[elided …]", not JSON): those are counted, not read.
    return (member?.conversation ?? [])
      .filter((entry) => entry.role === 'tool' && entry.toolName !== 'send_message')
      .map((entry) => ({ ...entry, result: typeof entry.content === 'string' && entry.content.startsWith('[elided') ? null : toolResult(entry) }));
  };
  const [malloryResults, readerResults] = [await results('mallory'), await results('reader')];
  await results('grower');
  const peak = stop();

  // 1. git init + a hooks path through a symlink to the host: the member's .git is swept, the host untouched.
  expect(malloryResults[0]?.result?.notice).toMatch(/removed \.git/);
  expect(fs.readFileSync(path.join(host, 'precious', 'secret.txt'), 'utf8')).toBe(`${HOST_SECRET}\n`);
  expect(fs.existsSync(path.join(root, '.git'))).toBe(false);
  // The operator's next `git status` there runs nothing of the member's (issue 53: a checkout that started without .git).
  spawnSync('git', ['-C', root, 'status', '--short'], {
    env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' },
  });
  expect(fs.existsSync(marker)).toBe(false);
  // 2. A hooks path through a symlink to the host's `/`: nothing of the host's is bound into the next call's sandbox.
  expect(malloryResults[2]?.result?.stdout).toBe('planted=0\n');
  expect(malloryResults[3]?.result?.stdout).not.toContain(HOST_SECRET);
  expect(malloryResults[3]?.result?.stdout).toMatch(/No such file or directory\nread=1\n/);
  // 3. 40 symlinks of 800 `d/..`: refused, typed, with the worker's descriptors bounded.
  expect(malloryResults[5]?.ok).toBe(false);
  expect(malloryResults[5]?.result?.error).toMatch(/^[A-Z][A-Za-z]+$/);
  expect(malloryResults[5]?.result?.error).not.toBe('ToolFailed');
  expect(peak.fds).toBeLessThan(DESCRIPTOR_BOUND);
  // 4. A name of terminal escapes and a symlink loop: a typed error that names no host path.
  expect(malloryResults[6]?.result?.stdout).toBe('made=0\n');
  const loop = malloryResults[7];
  expect(loop?.ok).toBe(false);
  expect(loop?.result?.error).not.toBe('ToolFailed');
  expect(JSON.stringify(loop?.result)).not.toContain(root);
  expect(JSON.stringify(loop?.result)).not.toContain('/proc/self/fd');
  // 5. A file grown between a size check and a read: each read is whole and small, or FileTooLarge; RSS stays flat.
  const readResults = readerResults.slice(1);
  expect(readResults).toHaveLength(30);
  for (const entry of readResults) if (!entry.ok && entry.result !== null) expect(['FileTooLarge', 'FileNotFound']).toContain(entry.result.error);
  expect(peak.rss).toBeLessThan(RSS_BOUND);

  for (const id of await teamWorkflowIds(env.client, teamId)) {
    const report = await chainReport(env.client, id);
    expect([id, report.failedWorkflowTasks, report.terminatedRuns]).toEqual([id, 0, 0]);
  }
  fs.rmSync(host, { recursive: true, force: true });
}, 240_000);

test('a member can neither move the hooks directory’s parent away nor write a hooks directory configured after the worker started', async () => {
  const root = env.worker.checkoutRoot;
  const operatorGit = (...args: string[]) =>
    spawnSync('git', ['-C', root, ...args], { env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' } });
  operatorGit('init', '-q');
  fs.mkdirSync(path.join(root, '.husky', '_'), { recursive: true });
  fs.mkdirSync(path.join(root, 'late-hooks'), { recursive: true });
  giveToBash(root);
  // The worker started long before: both hooks paths are configured now, as an operator (or husky's install) would.
  operatorGit('config', 'core.hooksPath', '.husky/_');
  const first = script(
    tool('bash', { command: 'mv .husky .husky-moved; echo mv=$?; printf "#!/bin/sh\\n" > .husky/_/pre-commit; echo hook=$?' }),
    tool('write_file', { path: '.husky/_/pre-commit', content: '#!/bin/sh\n', version: null }),
    send('lead', script(answer('first done'))),
  );
  const teamId = uniqueId('attack-hooks');
  await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
    workflowId: teamId,
    taskQueue: env.worker.taskQueue,
    args: [{ teamId, agent: { profile: 'team', prompt: scriptText(tool('spawn_teammate', { name: 'hooker', message: first })) } }],
  });
  const team = TeamClient.attach(env.client, teamId);
  const toolResults = async (count: number) => {
    const member = await eventually(
      () => teammateState(team, 'hooker').catch(() => null),
      (state) => state !== null && state.status === 'idle' && state.conversation.filter((entry) => entry.role === 'tool').length >= count,
      120_000,
    );
    // A long conversation elides its oldest results ("[elided …]", not JSON): those are counted, not read.
    return (member?.conversation ?? []).filter((entry) => entry.role === 'tool' && entry.toolName !== 'send_message').map((entry) => toolResult(entry));
  };
  const [moved, written] = await toolResults(3);
  expect(moved?.stdout).toBe('mv=1\nhook=1\n');
  expect(written?.error).toBe('ProtectedPath');
  expect(fs.lstatSync(path.join(root, '.husky')).isDirectory()).toBe(true);
  expect(fs.existsSync(path.join(root, '.husky', '_', 'pre-commit'))).toBe(false);

  // Reconfigured while the Team runs: the next call and the next write protect the new directory.
  operatorGit('config', 'core.hooksPath', 'late-hooks');
  await team.sendMessage(
    'hooker',
    scriptText(
      tool('bash', { command: 'printf "#!/bin/sh\\n" > late-hooks/pre-commit; echo hook=$?' }),
      tool('write_file', { path: 'late-hooks/post-checkout', content: '#!/bin/sh\n', version: null }),
      send('lead', script(answer('second done'))),
    ),
  );
  const results = await toolResults(6);
  const [late, lateWrite] = results.slice(-2);
  expect(late?.stdout).toBe('hook=1\n');
  expect(lateWrite?.error).toBe('ProtectedPath');
  expect(fs.readdirSync(path.join(root, 'late-hooks'))).toEqual([]);

  for (const id of await teamWorkflowIds(env.client, teamId)) {
    const report = await chainReport(env.client, id);
    expect([id, report.failedWorkflowTasks, report.terminatedRuns]).toEqual([id, 0, 0]);
  }
}, 180_000);
