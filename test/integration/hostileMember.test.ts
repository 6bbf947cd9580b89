/**
 * Issue 20 through a Team on the real server: the scripted model plays a hostile member. Mallory's
 * bash swaps a checkout directory for a symlink out of the checkout for 12 s while Victim's file
 * tools read and write through it; Mallory then tries git's config and hooks and a tool name that
 * carries a Markdown link. Every attempt ends in a typed error or inert output, nothing lands or is
 * read outside the checkout, the operator's `git status` runs nothing, and the Team keeps serving
 * with 0 failed workflow tasks and 0 terminations.
 *
 * Issue 21, the same way: a member's bash tries a socket of the host's, a 200 MB flood, an 8 GiB
 * allocation, a 6 GiB write to /tmp and a fork bomb; each ends refused or as SandboxLimit, and the
 * worker's RSS stays within 100 MB of where it started.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectCgroups } from '../../activities/tools/sandboxCgroup';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { useClientAndWorker } from '../support/harness';
import { eventually, teammateState, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';
import { forkBombPython } from '../support/attackScripts';
import { giveToBash } from '../support/bashUser';

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
  // The operator's git, as root, checks the repository's owner (bash's user): it trusts this one.
  const trusted = { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' };
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', env: trusted });
  git('init', '-q');
  git('-c', 'user.email=lead@example.invalid', '-c', 'user.name=Lead', 'commit', '-q', '--allow-empty', '-m', 'initial');
  giveToBash(root);

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

test('a member trying the host’s sockets and exhausting memory, processes, /tmp and output gets refusals and SandboxLimit; the Team serves on', async () => {
  const root = env.worker.checkoutRoot;
  const socketDir = process.getuid?.() === 0 ? '/run/agent-teams-test-team' : fs.mkdtempSync(path.join(os.tmpdir(), 'agent-teams-team-socket-'));
  fs.mkdirSync(socketDir, { recursive: true });
  const socketFile = path.join(socketDir, `bus-${process.pid}.sock`);
  fs.rmSync(socketFile, { force: true });
  let accepted = 0;
  const server = net.createServer((socket) => (accepted++, socket.end('systemd-run ready\n')));
  await new Promise<void>((resolve) => server.listen(socketFile, resolve));
  fs.chmodSync(socketFile, 0o777);
  const cgroups = detectCgroups();
  const rssBefore = process.memoryUsage().rss;
  try {
    const probe = `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socketFile}'); print('CONNECTED', s.recv(32))"`;
    const attacker = script(
      tool('bash', { command: probe }),
      tool('bash', { command: 'head -c 200000000 /dev/zero' }),
      tool('bash', { command: 'python3 -c "b = bytearray(8 * 1024**3)"', timeoutMs: 60_000 }),
      tool('bash', { command: 'dd if=/dev/zero of=/tmp/fill bs=1M count=6144 status=none' }),
      tool('write_file', { path: 'bomb.py', content: forkBombPython(), version: null }),
      tool('bash', { command: 'python3 bomb.py', timeoutMs: 60_000 }),
      send('lead', script(answer('attacker done'))),
    );
    const teamId = uniqueId('exhausting-member');
    await env.client.workflow.start(defs.TEAM_LEAD_WORKFLOW_TYPE, {
      workflowId: teamId,
      taskQueue: env.worker.taskQueue,
      args: [{ teamId, agent: { profile: 'team', prompt: scriptText(tool('spawn_teammate', { name: 'exhauster', message: attacker })) } }],
    });
    const team = TeamClient.attach(env.client, teamId);
    const lead = await eventually(
      () => team.handle().query(defs.getAgentStateQuery),
      (v) => v.status === 'answered',
      150_000,
    );
    expect(lead.finalAnswer).toBe('attacker done');
    const member = await eventually(
      () => teammateState(team, 'exhauster'),
      (state) => state.status === 'idle',
      60_000,
    );
    const bash = member.conversation
      .filter((entry) => entry.role === 'tool' && entry.toolName === 'bash')
      .map((entry) => ({ ok: entry.ok, result: toolResult(entry) }));
    expect(bash).toHaveLength(5);
    const [socket, flood, allocation, tmp, forks] = bash;
    expect(socket?.result.stdout ?? '').not.toMatch(/CONNECTED/);
    expect(socket?.result.stderr).toMatch(/FileNotFoundError|No such file/);
    expect(accepted).toBe(0);
    expect(flood?.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringContaining("sandbox's output limit (16 MiB)") });
    expect(tmp?.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringContaining("sandbox's tmp limit (512 MiB)") });
    if (cgroups?.memory) {
      expect(allocation?.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringContaining("sandbox's memory limit (2 GiB)") });
    } else expect(allocation?.result).toMatchObject({ exitCode: 1, stderr: expect.stringMatching(/MemoryError/) });
    if (cgroups?.pids) {
      expect(forks?.result).toMatchObject({ error: 'SandboxLimit', message: expect.stringContaining("sandbox's processes limit (256 processes)") });
    } else expect(forks?.result.stdout).toMatch(/forks refused: \d+/);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
    expect(fs.existsSync(path.join(root, 'fill'))).toBe(false);

    await team.createTask({ subject: 'after the exhaustion' });
    for (const id of await teamWorkflowIds(env.client, teamId)) {
      const chain = await chainReport(env.client, id);
      expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(socketDir, { recursive: true, force: true });
  }
}, 240_000);
