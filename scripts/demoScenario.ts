/**
 * A short scripted Team session used by `npm start` and by `npm run record-histories`: it exercises
 * every task Update, shows dependencies, readiness and write-scope overlap diagnostics, and one
 * stale-revision rejection handled the way a caller should (re-read, rebase, retry).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { TeamClient } from '../client/teamClient';
import { answer, script, scriptText, send, think, tool } from '../activities/providers/scriptedModelScript';
import type { TeamRejection } from '../shared/contract/rejections';

export async function runDemoScenario(team: TeamClient, log: (line: string) => void = () => undefined): Promise<void> {
  const design = await team.createTask({ subject: 'Design the parser API', writeScopes: ['docs/parser.md'] });
  log(`created task ${design.task.id} "${design.task.subject}"`);
  const parser = await team.createTask({ subject: 'Implement the parser', dependencies: [design.task.id], writeScopes: ['src/parser'] });
  const tests = await team.createTask({ subject: 'Write parser tests', dependencies: [parser.task.id], writeScopes: ['src/parser/__tests__'] });
  log(`created tasks ${parser.task.id} and ${tests.task.id}; overlap diagnostics on ${tests.task.id}: ${JSON.stringify(tests.task.overlaps)}`);
  const scratch = await team.createTask({ subject: 'Scratch idea', description: 'to be deleted' });

  let current = (await team.claimTask({ taskId: design.task.id, expectedRevision: design.task.revision })).task;
  log(`lead claimed task ${current.id} (revision ${current.revision})`);
  current = (await team.editTask({ taskId: current.id, expectedRevision: current.revision, description: 'REST, streaming' })).task;
  try {
    await team.editTask({ taskId: current.id, expectedRevision: current.revision - 1, description: 'stale write' });
  } catch (error) {
    if (!(error instanceof ApplicationFailure) || error.type !== 'TaskRevisionConflict') throw error;
    const snapshot = (error.details?.[0] as TeamRejection).currentTask;
    log(`stale edit rejected (${error.type}); rebased on revision ${snapshot?.revision}`);
  }
  current = (await team.transitionTask({ taskId: current.id, expectedRevision: current.revision, status: 'completed' })).task;
  log(`task ${current.id} completed`);

  let impl = (await team.assignTask({ taskId: parser.task.id, expectedRevision: parser.task.revision, owner: 'lead' })).task;
  impl = (await team.transitionTask({ taskId: impl.id, expectedRevision: impl.revision, status: 'in_progress' })).task;
  impl = (await team.releaseTask({ taskId: impl.id, expectedRevision: impl.revision })).task;
  impl = (await team.claimTask({ taskId: impl.id, expectedRevision: impl.revision })).task;
  impl = (await team.transitionTask({ taskId: impl.id, expectedRevision: impl.revision, status: 'completed' })).task;
  log(`task ${impl.id} assigned, started, released, re-claimed and completed (revision ${impl.revision})`);

  await team.deleteTask({ taskId: scratch.task.id, expectedRevision: scratch.task.revision });
  const read = await team.readTask(scratch.task.id);
  log(`task ${read.id} deleted; reading it by id still resolves its tombstone (deleted=${read.deleted})`);
  const board = await team.listTasks();
  log(`board: ${board.map((t) => `#${t.id} ${t.status}${t.ready ? ' (ready)' : ''}`).join(', ')}`);
}

/**
 * Teammates: two children spawned by the Lead, a message relayed between them by the scripted
 * model, a report back to the Lead's inbox, and a wait on the mailbox edge instead of polling.
 */
export async function runDemoTeammates(team: TeamClient, log: (line: string) => void = () => undefined): Promise<void> {
  const parser = await team.spawnTeammate({ name: 'parser-dev', message: { task: 'implement the parser', script: [{ think: 200 }] } });
  log(`spawned ${parser.member.name} (${parser.member.phase}) as child workflow ${parser.member.workflowId}`);
  const tester = await team.spawnTeammate({ name: 'test-writer', message: 'write the parser tests when parser-dev is done' });
  log(`spawned ${tester.member.name} (${tester.member.phase})`);

  const inboxEdge = team.waitForEdge(30_000, ['mailbox']);
  const receipt = await team.sendMessage('parser-dev', {
    script: [{ send: { to: 'test-writer', content: 'parser is ready for tests' } }, { send: { to: 'lead', content: { done: 'parser' } } }],
  });
  log(`sent to parser-dev: accepted as ${receipt.messageId} (target ${receipt.targetPhase}, ${receipt.targetStatus})`);
  const woke = await inboxEdge;
  log(`waitForEdge woke on ${woke.woke === 'edge' ? `${woke.edge.kind} edge #${woke.edge.seq}` : woke.woke}`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const messages = await team.readLeadInbox();
    if (messages.length > 0) {
      log(`lead inbox: ${messages.map((m) => `${m.from}: ${JSON.stringify(m.content)}`).join('; ')}`);
      break;
    }
    await team.waitForEdge(2_000, ['mailbox']);
  }
}

/**
 * The agent demo: a Lead on the Team profile, driven by the SCRIPTED model (no key needed), plans
 * two dependent tasks, spawns parser-dev (fresh) and, once the parser exists, test-writer (a fork
 * of the Lead's completed turns). Teammates claim their tasks, write files in the shared checkout
 * through version-checked tools, complete the tasks and report; the Lead waits for that required
 * work and then gives its final answer. Each script step is what a real model would decide.
 */
export function demoAgentPrompt(options: { parserThinkMs?: number } = {}): string {
  const testWriter = script(
    tool('claim_task', { taskId: 2, expectedRevision: 1 }),
    tool('read_file', { path: 'src/parser.ts' }),
    tool('write_file', {
      path: 'test/parser.test.ts',
      content: "import { parse } from '../src/parser';\ntest('splits', () => expect(parse('a,b')).toEqual(['a', 'b']));\n",
      version: null,
    }),
    tool('set_task_status', { taskId: 2, expectedRevision: 2, status: 'completed' }),
    send('lead', script(tool('list_tasks'), answer('Parser and tests are written; both tasks are completed. Next: review the diff and run the tests.'))),
  );
  const parserDev = script(
    tool('claim_task', { taskId: 1, expectedRevision: 1 }),
    think(options.parserThinkMs ?? 500),
    tool('write_file', { path: 'src/parser.ts', content: "export const parse = (line: string): string[] => line.split(',');\n", version: null }),
    tool('set_task_status', { taskId: 1, expectedRevision: 2, status: 'completed' }),
    // The Lead's next turn follows this report: the tests can start once the parser exists.
    send('lead', script(tool('spawn_teammate', { name: 'test-writer', context: 'fork', message: testWriter }))),
  );
  return scriptText(
    tool('create_task', { subject: 'Implement the CSV parser', writeScopes: ['src/parser.ts'] }),
    tool('create_task', { subject: 'Write parser tests', dependencies: [1], writeScopes: ['test/'] }),
    tool('spawn_teammate', { name: 'parser-dev', message: parserDev }),
  );
}
