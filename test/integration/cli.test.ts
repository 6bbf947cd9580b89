/**
 * CLI composition: a Team driven only through the CLI (separate processes) on the real server,
 * then the persisted Lead and teammate histories and the final board are checked.
 */
import { demoAgentPrompt } from '../../scripts/demoScenario';
import { teammateWorkflowId } from '../../shared/team';
import { TeamClient } from '../../client/teamClient';
import { cli, cliInBackground, cliWith } from '../support/cli';
import { eventually } from '../support/teams';
import { useClientAndWorker } from '../support/harness';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();

test('start, spawn, send, tasks, roster, inbox and dispose through the CLI; histories show the wire contract', async () => {
  const teamId = uniqueId('cli-team');
  expect((await cli('start', teamId, '--task-queue', env.worker.taskQueue)).stdout).toMatch(`started Team ${teamId}`);
  const alice = await cli('spawn', teamId, 'alice', JSON.stringify({ script: [{ send: { to: 'lead', content: 'hi from alice' } }] }));
  expect(alice.stdout).toMatch(/alice: active/);
  expect((await cli('spawn', teamId, 'bob', 'review what alice writes')).stdout).toMatch(/bob: active/);

  const sent = await cli('--json', 'send', teamId, 'bob', '{"text":"hello bob"}', '--id', 'cli-m1');
  expect(JSON.parse(sent.stdout)).toMatchObject({ messageId: 'cli-m1', to: 'bob', targetPhase: 'active' });

  expect((await cli('task', 'create', teamId, 'Build the parser', '--scopes', 'src/parser')).stdout).toMatch(/Build the parser/);
  expect((await cli('task', 'create', teamId, 'Test the parser', '--deps', '1', '--scopes', 'src/parser/tests')).stdout).toMatch(/advisory only/);
  expect((await cli('--as', 'alice', 'task', 'claim', teamId, '1', '1')).code).toBe(0);
  const stale = await cli('--as', 'bob', 'task', 'claim', teamId, '1', '1');
  expect(stale.code).toBe(1);
  expect(stale.stderr).toMatch(/error \(TaskRevisionConflict\): task 1 is at revision 2, not 1; re-read it/);
  expect((await cli('--as', 'alice', 'task', 'status', teamId, '1', '2', 'completed')).code).toBe(0);
  expect((await cli('--as', 'bob', 'task', 'claim', teamId, '2', '1')).code).toBe(0);

  const unknown = await cli('send', teamId, 'zed', 'hi');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/error \(UnknownMember\).*read the roster/);

  let inbox = '';
  for (let i = 0; i < 20 && !inbox.includes('hi from alice'); i++) inbox += (await cli('inbox', teamId)).stdout;
  expect(inbox).toMatch(/alice: "hi from alice"/);

  const roster = JSON.parse((await cli('--json', 'roster', teamId)).stdout) as { members: { name: string; phase: string }[] };
  expect(roster.members.map((m) => [m.name, m.phase])).toEqual([
    ['alice', 'active'],
    ['bob', 'active'],
  ]);
  const tasks = JSON.parse((await cli('--json', 'tasks', teamId)).stdout) as { id: number; status: string; owner: string }[];
  expect(tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
    [1, 'completed', 'alice'],
    [2, 'in_progress', 'bob'],
  ]);
  expect((await cli('dispose', teamId)).stdout).toMatch(/disposed .*alice stopped, bob stopped/);

  // The persisted histories carry the public wire contract.
  const leadEvents = (await env.client.workflow.getHandle(teamId).fetchHistory()).events ?? [];
  const updates = leadEvents.map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name).filter(Boolean);
  expect(updates).toEqual(
    expect.arrayContaining(['spawnTeammate', 'sendMessage', 'createTask', 'claimTask', 'transitionTask', 'readLeadInbox', 'disposeTeam']),
  );
  expect(updates.filter((u) => u === 'claimTask')).toHaveLength(2); // the stale claim was rejected before history
  expect(leadEvents.filter((e) => e.childWorkflowExecutionStartedEventAttributes)).toHaveLength(2);
  expect(leadEvents.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'reportMemberStatus')).toBe(true);
  expect(leadEvents.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  const bobEvents = (await env.client.workflow.getHandle(teammateWorkflowId(teamId, 'bob')).fetchHistory()).events ?? [];
  expect(bobEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'deliverMessage')).toHaveLength(1);
  expect(bobEvents.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
});

test('a Team started from the CLI with a prompt runs a Lead agent and two teammates on the scripted model; histories and board are as designed', async () => {
  const teamId = uniqueId('cli-agent');
  const started = await cli(
    'start',
    teamId,
    '--task-queue',
    env.worker.taskQueue,
    '--profile',
    'team',
    '--prompt',
    demoAgentPrompt(),
    '--wait',
    '--timeout',
    '300',
  );
  expect(started.code).toBe(0);
  expect(started.stdout).toMatch(`started Team ${teamId}`);
  expect(started.stdout).toMatch(/Web UI: /);
  expect(started.stdout).toMatch(/Parser and tests are written/);
  expect(started.stderr).toMatch(/turn 1/); // progress while waiting

  const roster = JSON.parse((await cli('--json', 'roster', teamId)).stdout) as { members: { name: string; phase: string; context: string }[] };
  expect(roster.members.map((m) => [m.name, m.phase, m.context])).toEqual([
    ['parser-dev', 'active', 'fresh'],
    ['test-writer', 'active', 'fork'],
  ]);
  const tasks = JSON.parse((await cli('--json', 'tasks', teamId)).stdout) as { id: number; status: string; owner: string; revision: number }[];
  expect(tasks.map((t) => [t.id, t.status, t.owner, t.revision])).toEqual([
    [1, 'completed', 'parser-dev', 3],
    [2, 'completed', 'test-writer', 3],
  ]);
  const conversation = await cli('conversation', teamId, 'parser-dev');
  expect(conversation.code).toBe(0);
  expect(conversation.stdout).toMatch(/claim_task/);
  const answer = await cli('--json', 'answer', teamId);
  expect(JSON.parse(answer.stdout)).toMatchObject({ status: 'answered', turns: 3, openTasksAtAnswer: [] });

  // Persisted histories. The Lead: model calls as activities, two children, teammates' Team tool
  // calls as attributed Updates (claims, completions, reports), status signals.
  const leadEvents = (await env.client.workflow.getHandle(teamId).fetchHistory()).events ?? [];
  const activities = leadEvents.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
  // Its own Team tools run in-workflow: only model calls are activities (2 per turn: tools, then reply).
  expect(activities).toEqual(Array(6).fill('callModel'));
  expect(
    leadEvents.filter((e) => e.childWorkflowExecutionStartedEventAttributes).map((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowType?.name),
  ).toEqual(['teammate', 'teammate']);
  const accepted = leadEvents.flatMap((e) => {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    return request ? [request.input?.name] : [];
  });
  expect(accepted.filter((name) => name === 'claimTask')).toHaveLength(2);
  expect(accepted.filter((name) => name === 'transitionTask')).toHaveLength(2);
  expect(accepted.filter((name) => name === 'sendMessage')).toHaveLength(2);
  expect(leadEvents.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'reportMemberStatus').length).toBeGreaterThanOrEqual(4);
  // A teammate: its own model calls, Team tools through the Lead, work tools on the checkout queue,
  // between the status reports its worker signals to the Lead as its turn starts and ends.
  const devEvents = (await env.client.workflow.getHandle(teammateWorkflowId(teamId, 'parser-dev')).fetchHistory()).events ?? [];
  expect(devEvents.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean)).toEqual([
    'reportMemberStatus',
    'callModel',
    'runTeamTool',
    'callModel',
    'runWorkTool',
    'runTeamTool',
    'runTeamTool',
    'callModel',
    'reportMemberStatus',
  ]);
  expect(devEvents.filter((e) => e.workflowExecutionSignaledEventAttributes).length).toBe(0); // its initial message came in the start input

  expect((await cli('dispose', teamId)).stdout).toMatch(/disposed .*parser-dev stopped, test-writer stopped/);
});

test('a task subject carrying terminal escapes prints inert from the real CLI: tasks, --json tasks, and an error quoting a name', async () => {
  const teamId = uniqueId('cli-escapes');
  // OSC 52 (write the clipboard), CSI 2J (clear the screen), a one-byte C1 CSI, and RLO.
  const subject = 'Fix the parser \u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007\u001b[2J\u009b2J \u202etxt.exe';
  // eslint-disable-next-line no-control-regex
  const active = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  expect((await cli('start', teamId, '--task-queue', env.worker.taskQueue)).code).toBe(0);
  try {
    const created = await cli('task', 'create', teamId, subject);
    expect(created.code).toBe(0);
    expect(created.stdout).not.toMatch(active);
    const tasks = await cli('tasks', teamId);
    expect(tasks.code).toBe(0);
    expect(tasks.stdout).not.toMatch(active);
    expect(tasks.stdout).toContain('Fix the parser \ufffd]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\ufffd\ufffd[2J\ufffd2J \ufffdtxt.exe');
    // JSON keeps the subject exactly, with no raw control in what reaches the terminal.
    const json = await cli('--json', 'tasks', teamId);
    expect(json.stdout).not.toMatch(active);
    expect((JSON.parse(json.stdout) as { subject: string }[]).map((t) => t.subject)).toEqual([subject]);
    // A rejection that quotes what it refused goes to stderr through the same boundary.
    const unknown = await cli('send', teamId, 'zed\u001b[2J\u202e', 'hi');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error \(/);
    expect(unknown.stderr).not.toMatch(active);
  } finally {
    await cli('dispose', teamId);
  }
});

/** Far beyond the deadlines below plus a CLI process's start-up; a command that hangs is killed here. */
const KILL_AFTER_MS = 90_000;

test('watch prints a burst of edges whole and in order: each wait starts after the last edge printed', async () => {
  const team = await TeamClient.start(env.client, { teamId: uniqueId('cli-watch-burst'), taskQueue: env.worker.taskQueue });
  const watch = cliInBackground('watch', team.teamId, '--for', '20');
  try {
    // Once a task created now is printed, the watch is waiting; then six tasks at once.
    await eventually(
      async () => {
        if (!watch.stdout().includes('taskCreated')) await team.createTask({ subject: 'is the watch waiting?' });
        return watch.stdout();
      },
      (out) => out.includes('taskCreated'),
      30_000,
    );
    const before = (await team.listTasks()).length;
    await Promise.all(Array.from({ length: 6 }, (_, i) => team.createTask({ subject: `burst ${i}` })));
    const printed = (): number[] => [...watch.stdout().matchAll(/^#(\d+) \S+ task taskCreated$/gm)].map((m) => Number(m[1]));
    // Only tasks make edges in this Team, one each: the burst's are numbered up to before + 6.
    const seqs = await eventually(
      () => Promise.resolve(printed()),
      (all) => all.includes(before + 6),
      30_000,
    );
    // Every task edge since the first one printed, each once, in the Lead's order: no gap.
    expect(seqs).toEqual(Array.from({ length: before + 7 - seqs[0]! }, (_, i) => seqs[0]! + i));
  } finally {
    await team.dispose();
  }
  // The Team finishing ends the watch: what there was to watch is over, not an error.
  expect(await watch.exited).toBe(0);
  expect(watch.stderr()).toMatch(/has finished: nothing more to watch\n$/);
});

test('against a Lead no worker polls, every kind of command ends by its deadline, exit 1, saying what to do next', async () => {
  const taskQueue = uniqueId('no-worker');
  const teamId = uniqueId('cli-wedged');
  expect((await cli('start', teamId, '--task-queue', taskQueue)).code).toBe(0); // starting needs no worker
  const noWorker = `No worker polls the Lead's task queue "${taskQueue}": start one on it (TEMPORAL_TASK_QUEUE=${taskQueue} npm run worker).`;
  try {
    const create = await cliWith({ killAfterMs: KILL_AFTER_MS }, '--timeout', '2', 'task', 'create', teamId, 'never in time');
    expect(create).toMatchObject({ code: 1, killed: false });
    expect(create.stderr).toMatch(
      new RegExp(`^error \\(TeamCallTimedOut\\): Team ${teamId}: createTask \\(update id [0-9a-f-]+\\) did not finish within its [0-9.]+s deadline\\.`),
    );
    expect(create.stderr).toContain(noWorker);
    expect(create.stderr).toContain(`Check \`npm run cli -- status ${teamId}\``);
    expect(create.stderr).toContain(
      'From the CLI: it may still be applied, so read the board or roster before repeating it; --timeout <seconds> gives the command more time.',
    );

    // --timeout is a global option: it may also follow the command.
    const roster = await cliWith({ killAfterMs: KILL_AFTER_MS }, 'roster', teamId, '--timeout', '2');
    expect(roster).toMatchObject({ code: 1, killed: false });
    expect(roster.stderr).toMatch(/error \(TeamCallTimedOut\): .*(getTeamView|getLiveStatus) did not finish/);
    expect(roster.stderr).toContain(noWorker);

    const send = await cliWith({ killAfterMs: KILL_AFTER_MS }, '--timeout', '2', 'send', teamId, 'bob', 'hi', '--id', 'cli-timeout-m1');
    expect(send).toMatchObject({ code: 1, killed: false });
    expect(send.stderr).toContain('From the CLI: repeat it with `send … --id cli-timeout-m1` (taken once)');

    const watch = await cliWith({ killAfterMs: KILL_AFTER_MS }, 'watch', teamId, '--for', '1', '--timeout', '2');
    expect(watch).toMatchObject({ code: 1, killed: false });
    expect(watch.stderr).toMatch(/error \(TeamCallTimedOut\): .*waitForEdge .*did not finish/);

    // --wait: progress as usual; the Lead's first read cannot be answered, so it ends with that read's deadline (30 s).
    const wait = await cliWith({ killAfterMs: KILL_AFTER_MS }, 'answer', teamId, '--wait', '--timeout', '5');
    expect(wait).toMatchObject({ code: 1, killed: false });
    expect(wait.stderr).toMatch(/waiting for .*'s Lead agent to answer \(up to 5s/);
    expect(wait.stderr).toMatch(/error \(TeamCallTimedOut\): .*getAgentState did not finish/);
    expect(wait.stderr).toContain(noWorker);

    // status reads what the server knows without a worker, and says the same.
    const status = await cliWith({ killAfterMs: KILL_AFTER_MS }, 'status', teamId);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`task queue: ${taskQueue} (0 workers polling it)`);
    expect(status.stdout).toContain(`next: ${noWorker}`);
    expect(JSON.parse((await cli('--json', 'status', teamId)).stdout)).toMatchObject({ teamId, status: 'RUNNING', taskQueue, pollers: 0, advice: noWorker });

    const invalid = await cli('--timeout', '0', 'roster', teamId);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/"0" is not a positive number of seconds/);
  } finally {
    await env.client.workflow.getHandle(teamId).terminate('cli timeout test cleanup');
  }
});
