/**
 * `npm run record-histories`: runs scripted Team sessions on a fresh in-memory dev server and
 * saves each workflow history to test/histories/. The replay test runs every saved history
 * against the current workflow code, so a non-deterministic change fails CI. Record new histories
 * whenever workflow behaviour grows; never delete old ones while their code paths still exist.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { execFileSync } from 'node:child_process';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { TeamClient } from '../client/teamClient';
import { createTeamWorker } from '../worker/createWorker';
import { createWorkerLogger } from '../worker/telemetry';
import { ensureTemporalCli, startDevServer } from './devServer';
import { answer, script, scriptText, send, think, tool } from '../activities/providers/scriptedModelScript';
import { OPERATOR, REAPER_WORKFLOW_TYPE, TEAM_BUDGET, getTeammateStateQuery, type ReaperWorkflow } from '../shared/contract';
import type { JsonValue } from '../shared/contract/json';
import { demoAgentPrompt, runDemoScenario, runDemoTeammates } from './demoScenario';
import { SUGGEST_EARLY_DYNAMIC_CONFIG, runSuggestedRollover } from './suggestedRollover';

const OUT = path.join(__dirname, '..', 'test', 'histories');

async function main(): Promise<void> {
  const version = process.argv[2];
  if (!version) throw new Error('usage: npm run record-histories -- <version>, e.g. v5 (files are named after it)');
  Runtime.install({ logger: createWorkerLogger('WARN', 'text') });
  const server = await startDevServer({ uiPort: false });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const checkoutRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'record-histories-checkout-'));
  const { worker, close: closeWorker } = await createTeamWorker({
    connection: workerConnection,
    address: server.address,
    taskQueue: 'record-histories',
    checkoutRoot,
  });
  try {
    await worker.runUntil(async () => {
      const team = await TeamClient.start(client, { teamId: `history-demo-${version}`, taskQueue: 'record-histories' });
      await runDemoScenario(team, (line) => console.log(`  ${line}`));
      await runDemoTeammates(team, (line) => console.log(`  ${line}`));
      const { members } = await team.view();
      await team.dispose();
      await team.handle().result();
      save(server.address, team.teamId, `teamLead-demo-${version}.json`);
      for (const member of members) save(server.address, member.workflowId, `teammate-${member.name}-${version}.json`);

      // The agent runtime: a Lead agent on the Team profile with a fresh and a fork teammate.
      const agentTeam = await TeamClient.start(client, {
        teamId: `history-agent-${version}`,
        taskQueue: 'record-histories',
        agent: { prompt: demoAgentPrompt(), profile: 'team' },
      });
      await agentTeam.waitForAnswer({ timeoutMs: 120_000 });
      const agentMembers = (await agentTeam.view()).members;
      await agentTeam.dispose();
      await agentTeam.handle().result();
      save(server.address, agentTeam.teamId, `teamLead-agent-${version}.json`);
      for (const member of agentMembers) save(server.address, member.workflowId, `teammate-agent-${member.name}-${version}.json`);

      // The default profile: an ordinary subagent, a follow-up, a wait and close.
      const soloId = `history-solo-${version}`;
      const agentId = `${soloId}/subagent/1`;
      const solo = await TeamClient.start(client, {
        teamId: soloId,
        taskQueue: 'record-histories',
        agent: {
          prompt: scriptText(
            tool('subagent', { prompt: scriptText(tool('write_file', { path: 'notes.txt', content: 'notes', version: null }), answer('notes written')) }),
            tool('read_file', { path: 'notes.txt' }),
            tool('send_input', { agentId, message: scriptText(answer('second')) }),
            tool('wait_agent', { agentId, timeoutMs: 60_000 }),
            tool('close_agent', { agentId }),
            answer('solo done'),
          ),
        },
      });
      await solo.waitForAnswer({ timeoutMs: 120_000 });
      await solo.dispose();
      await solo.handle().result();
      save(server.address, soloId, `teamLead-solo-${version}.json`);
      save(server.address, agentId, `subagent-${version}.json`);

      // A teammate's wait_agent: watch signals to the Lead, a notification back, then a report.
      const waitTeam = await TeamClient.start(client, {
        teamId: `history-wait-${version}`,
        taskQueue: 'record-histories',
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('spawn_teammate', {
              name: 'waiter',
              message: script(tool('wait_agent', { timeoutMs: 60_000, kinds: ['task'] }), send('lead', script(answer('woken')))),
            }),
          ),
        },
      });
      const waiterId = `${waitTeam.teamId}/teammate/waiter`;
      for (let i = 0; i < 100; i++) {
        const state = await client.workflow
          .getHandle(waiterId)
          .query(getTeammateStateQuery)
          .catch(() => null);
        if (state?.conversation.some((e) => e.toolCalls?.some((c) => c.name === 'wait_agent'))) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 500)); // let the watch reach the Lead
      // Steer: a message to the waiting (running) teammate, taken at the step boundary after the wait; its script answers the Lead.
      const steer: JsonValue = { script: [{ send: { to: 'lead', content: { script: [{ answer: 'woken, steered' }] } } }] };
      await waitTeam.sendMessage('waiter', steer, 'steer-while-waiting');
      await waitTeam.createTask({ subject: 'wake the waiter' });
      await waitTeam.waitForAnswer({ timeoutMs: 120_000 });
      await waitTeam.dispose();
      await waitTeam.handle().result();
      save(server.address, waitTeam.teamId, `teamLead-wait-${version}.json`);
      save(server.address, waiterId, `teammate-waiter-${version}.json`);

      // A Team id started again: the second Lead agent's subagent finds the first Lead's closed
      // subagent on its reserved id, stops it (a no-op) and starts as the next id.
      const againId = `history-subagent-again-${version}`;
      for (const _round of [1, 2]) {
        const again = await TeamClient.start(client, {
          teamId: againId,
          taskQueue: 'record-histories',
          agent: { prompt: scriptText(tool('subagent', { prompt: scriptText(answer('hello')) }), answer('done')) },
        });
        await again.waitForAnswer({ timeoutMs: 120_000 });
        await again.dispose();
        await again.handle().result();
      }
      save(server.address, againId, `teamLead-subagent-again-${version}.json`);

      // Budgets (issue 27): usage recorded per call; a teammate stopped mid-turn by its calls budget,
      // the Lead told; the operator's setBudget lets it go on; the Lead's own budget ends its turn.
      const budgetTeam = await TeamClient.start(client, {
        teamId: `history-budget-${version}`,
        taskQueue: 'record-histories',
        budgets: { lead: { calls: 2 }, member: { calls: 2 } },
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('spawn_teammate', { name: 'thrifty', message: script(tool('list_tasks'), think(1), tool('list_tasks'), answer('done')) }),
            answer('spawned'),
          ),
        },
      });
      const thriftyId = `${budgetTeam.teamId}/teammate/thrifty`;
      await until(
        async () =>
          ((
            await client.workflow
              .getHandle(thriftyId)
              .query(getTeammateStateQuery)
              .catch(() => null)
          )?.budgetStop ?? null) !== null,
      );
      // The Lead is told (its own budget then answers for it) before the operator raises the teammate's.
      await until(async () => (await budgetTeam.agentState()).finalAnswer?.startsWith('BudgetExhausted') === true);
      await budgetTeam.as(OPERATOR).setBudget('thrifty', { calls: 10 });
      await budgetTeam.sendMessage('thrifty', script(answer('done')) as unknown as JsonValue);
      await until(async () => (await client.workflow.getHandle(thriftyId).query(getTeammateStateQuery)).conversation.some((e) => e.content === 'done'));
      await budgetTeam.dispose();
      await budgetTeam.handle().result();
      save(server.address, budgetTeam.teamId, `teamLead-budget-${version}.json`);
      save(server.address, thriftyId, `teammate-budget-${version}.json`);

      // The Team budget (issue 27): the teammate asks the Lead before each call and is refused at the
      // Team's cap, the Lead's own call stops there too; the operator's raise grants the teammate again.
      const teamBudgetTeam = await TeamClient.start(client, {
        teamId: `history-team-budget-${version}`,
        taskQueue: 'record-histories',
        budgets: { team: { calls: 3 } },
        agent: {
          profile: 'team',
          prompt: scriptText(
            tool('spawn_teammate', { name: 'frugal', message: script(tool('list_tasks'), think(1), tool('list_tasks'), answer('done')) }),
            answer('spawned'),
          ),
        },
      });
      const frugalId = `${teamBudgetTeam.teamId}/teammate/frugal`;
      const frugalState = () =>
        client.workflow
          .getHandle(frugalId)
          .query(getTeammateStateQuery)
          .catch(() => null);
      await until(async () => ((await frugalState())?.budgetStop ?? null) !== null);
      await until(async () => (await teamBudgetTeam.agentState()).finalAnswer?.startsWith('BudgetExhausted') === true);
      await teamBudgetTeam.as(OPERATOR).setBudget(TEAM_BUDGET, { calls: 20 });
      await teamBudgetTeam.sendMessage('frugal', script(answer('done again')) as unknown as JsonValue);
      await until(async () => (await frugalState())?.conversation.some((e) => e.content === 'done again') === true);
      await teamBudgetTeam.dispose();
      await teamBudgetTeam.handle().result();
      save(server.address, teamBudgetTeam.teamId, `teamLead-team-budget-${version}.json`);
      save(server.address, frugalId, `teammate-team-budget-${version}.json`);

      // Ending by cancel requests (issue 22): an operator cancels one teammate (the Lead records it
      // stopped once memberClosed confirms it), then the Lead, whose disposal stops the other mid-turn.
      const cancelTeam = await TeamClient.start(client, { teamId: `history-cancel-${version}`, taskQueue: 'record-histories' });
      await cancelTeam.spawnTeammate({ name: 'busy', message: scriptText(think(60_000), answer('never reached')) });
      await cancelTeam.spawnTeammate({ name: 'quiet', message: scriptText(answer('done at once')) });
      const quietId = `${cancelTeam.teamId}/teammate/quiet`;
      await until(async () => (await cancelTeam.view()).members.every((m) => m.phase === 'active'));
      await until(async () => (await client.workflow.getHandle(quietId).query(getTeammateStateQuery)).status === 'idle');
      await client.workflow.getHandle(quietId).cancel();
      await until(async () => (await cancelTeam.view()).members.find((m) => m.name === 'quiet')?.phase === 'stopped');
      const report = await cancelTeam.cancel();
      if (report.status !== 'CANCELLED') throw new Error(`the cancelled Lead ended ${report.status}`);
      save(server.address, cancelTeam.teamId, `teamLead-cancel-${version}.json`);
      save(server.address, `${cancelTeam.teamId}/teammate/busy`, `teammate-busy-cancelled-${version}.json`);
      save(server.address, quietId, `teammate-quiet-cancelled-${version}.json`);

      // The orphan reaper (issue 22): a terminated Lead leaves a teammate running; one reaper pass cancels it.
      const orphanTeam = await TeamClient.start(client, { teamId: `history-orphan-${version}`, taskQueue: 'record-histories' });
      await orphanTeam.spawnTeammate({ name: 'orphan', message: scriptText(answer('idle from now on')) });
      const orphanId = `${orphanTeam.teamId}/teammate/orphan`;
      await until(async () => (await client.workflow.getHandle(orphanId).query(getTeammateStateQuery)).status === 'idle');
      await orphanTeam.handle().terminate('recording: the Lead dies and leaves an orphan');
      const reaperId = `history-reaper-${version}`;
      await until(async () => {
        const pass = await client.workflow.execute<ReaperWorkflow>(REAPER_WORKFLOW_TYPE, {
          workflowId: reaperId,
          taskQueue: 'record-histories',
          args: [{ taskQueue: 'record-histories' }],
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        });
        return pass.cancelled.includes(orphanId);
      });
      await until(async () => (await client.workflow.getHandle(orphanId).describe()).status.name !== 'RUNNING');
      save(server.address, reaperId, `orphanReaper-${version}.json`);
      save(server.address, orphanId, `teammate-orphan-reaped-${version}.json`);

      // A continued Lead run: its first event carries the previous run's state as the Lead carries it now.
      const rolled = await TeamClient.start(client, { teamId: `history-rollover-${version}`, taskQueue: 'record-histories' });
      const { task } = await rolled.createTask({ subject: 'carried across the rollover' });
      while ((await rolled.runInfo()).continuedRuns === 0) await Promise.all(Array.from({ length: 25 }, () => rolled.listTasks()));
      const claimed = await rolled.claimTask({ taskId: task.id, expectedRevision: task.revision });
      await rolled.transitionTask({ taskId: task.id, expectedRevision: claimed.task.revision, status: 'completed' });
      await rolled.sendMessage('lead', 'after the rollover');
      await rolled.readLeadInbox();
      await rolled.dispose();
      await rolled.handle().result();
      save(server.address, rolled.teamId, `teamLead-rollover-${version}.json`); // the latest run: the continued one

      // A Lead turn whose only model call ends as the run rolls over (reply-across-rollover-v1):
      // the continued run acts on the reply it carried, here the final answer.
      const replied = await TeamClient.start(client, {
        teamId: `history-reply-rollover-${version}`,
        taskQueue: 'record-histories',
        agent: { prompt: scriptText(think(20_000), answer('answered across the rollover')), profile: 'team' },
      });
      while (!(await replied.runInfo()).rollingOver) await Promise.all(Array.from({ length: 25 }, () => replied.listTasks()));
      const repliedView = await replied.waitForAnswer({ timeoutMs: 120_000 });
      if ((await replied.runInfo()).continuedRuns === 0 || repliedView.finalAnswer !== 'answered across the rollover') {
        throw new Error('the reply-across-rollover scenario did not answer in a continued run');
      }
      await replied.dispose();
      await replied.handle().result();
      save(server.address, replied.teamId, `teamLead-reply-rollover-${version}.json`); // the continued run

      // Reads that do not fit one completion (completion-budget-v1): listTasks of a full board sent
      // together, some answered from later workflow tasks that the Lead's completionNudge forces.
      const full = await TeamClient.start(client, { teamId: `history-completion-budget-${version}`, taskQueue: 'record-histories' });
      await fillBoard(full);
      const { runId: burstRun } = await full.handle().describe();
      for (let burst = 0; !(await nudged(client, full.teamId, burstRun)); burst++) {
        if (burst === 5) throw new Error('five bursts of listTasks were all answered without a deferral');
        await Promise.all(Array.from({ length: 4 }, () => full.listTasks()));
      }
      save(server.address, full.teamId, `teamLead-completion-budget-${version}.json.gz`, burstRun); // megabytes of reads: gzipped
      await full.dispose();
      await full.handle().result();
    });
  } finally {
    await closeWorker();
    await workerConnection.close();
    await connection.close();
    await server.stop();
  }
  await recordSuggestedRollover(version);
}

/**
 * A rollover whose first suggestion came in a task of rejected Updates only (rollover-suggestion-traced-v1),
 * on a server of its own that suggests continue-as-new early: its first run, which ends continued as new.
 */
async function recordSuggestedRollover(version: string): Promise<void> {
  const server = await startDevServer({ uiPort: false, dynamicConfig: SUGGEST_EARLY_DYNAMIC_CONFIG });
  const connection = await Connection.connect({ address: server.address });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const checkoutRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'record-histories-checkout-'));
  const { worker, close } = await createTeamWorker({ connection: workerConnection, address: server.address, taskQueue: 'record-histories', checkoutRoot });
  try {
    await worker.runUntil(async () => {
      const client = new Client({ connection });
      const team = await TeamClient.start(client, { teamId: `history-suggested-rollover-${version}`, taskQueue: 'record-histories' });
      const outcome = await runSuggestedRollover(client, team);
      if (outcome.runIdAfterRejection !== outcome.runId) throw new Error('the Lead rolled over in a task of rejected Updates only');
      await team.dispose();
      await team.handle().result();
      save(server.address, team.teamId, `teamLead-suggested-rollover-${version}.json`, outcome.runId);
    });
  } finally {
    await close();
    await workerConnection.close();
    await connection.close();
    await server.stop();
  }
}

/** Polls `probe` every 100 ms until it holds (60 s at most). */
async function until(probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('a recorded scenario did not reach its next step within 60 s');
}

/** Tasks with four nested scopes of about 500 characters each until BoardFull: one listTasks is then about 715 kB (test/support/largeBoard.ts). */
async function fillBoard(team: TeamClient): Promise<void> {
  const segments = Array.from({ length: 4 }, (_, i) => `d${i}`.padEnd(124, 'x'));
  const scopes = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  for (let n = 1; ; n++) {
    try {
      await team.createTask({ subject: `large ${n}`, writeScopes: n % 2 === 0 ? [...scopes].reverse() : scopes });
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === 'BoardFull') return;
      throw error;
    }
  }
}

/** Whether the Lead's run nudged itself to send a deferred result. */
async function nudged(client: Client, workflowId: string, runId: string): Promise<boolean> {
  const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return (events ?? []).some((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === 'completionNudge');
}

/** Exports with `temporal workflow show --output json`: the format users get from the CLI and Web UI. */
function save(address: string, workflowId: string, file: string, runId?: string): void {
  const run = runId === undefined ? [] : ['--run-id', runId];
  const json = execFileSync(ensureTemporalCli(), ['workflow', 'show', '--workflow-id', workflowId, ...run, '--output', 'json', '--address', address], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024, // a full board's history runs to megabytes
  });
  const events = (JSON.parse(json) as { events?: unknown[] }).events?.length ?? 0;
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, file), file.endsWith('.gz') ? zlib.gzipSync(json, { level: 9 }) : json);
  // Replay runs each history under the workflow id it was recorded with.
  const idsFile = path.join(OUT, 'workflow-ids.json');
  const ids = fs.existsSync(idsFile) ? (JSON.parse(fs.readFileSync(idsFile, 'utf8')) as Record<string, string>) : {};
  fs.writeFileSync(idsFile, `${JSON.stringify({ ...ids, [file]: workflowId }, null, 2)}\n`);
  console.log(`saved ${events} events of ${workflowId} to test/histories/${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
