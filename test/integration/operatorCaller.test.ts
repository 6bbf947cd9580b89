/**
 * The operator caller on the real server: a person ("@operator") acts with the Lead's authority
 * under its own name, owns no tasks, and its messages reach a teammate attributed to it. A model
 * cannot take that name: the Lead's own tools and a teammate's tool calls that smuggle a `caller`
 * argument are refused, and what they do create is attributed to "lead" and to the teammate.
 */
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { LEAD, OPERATOR } from '../../shared/contract/callers';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorker } from '../support/harness';
import { eventually, rejectionOf, startAgentTeam, teammateState, toolResult } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();

test("the operator acts under its own name with the Lead's authority; a model's smuggled caller is refused", async () => {
  const aliceScript = script(
    tool('create_task', { subject: 'smuggled by alice', caller: OPERATOR }),
    tool('create_task', { subject: 'written by alice' }),
    send(LEAD, script(answer('alice is done'))),
  );
  const operator = await startAgentTeam(
    env.client,
    env.worker.taskQueue,
    {
      profile: 'team',
      prompt: scriptText(
        tool('create_task', { subject: 'smuggled by the Lead', caller: OPERATOR }),
        tool('create_task', { subject: 'planned by the Lead' }),
        tool('spawn_teammate', { name: 'alice', message: aliceScript }),
      ),
    },
    { teamId: uniqueId('team-operator') },
    OPERATOR,
  );
  const teamId = operator.teamId;
  const lead = await eventually(
    () => operator.agentState(),
    (v) => v.status === 'answered',
    120_000,
  );
  // Alice's report reached the Lead (the open tasks then keep it nudging until it answers; not this test's subject).
  expect(lead.conversation.some((e) => e.role === 'user' && e.from === 'alice')).toBe(true);

  // The smuggling tool calls came back to the models as typed errors and changed nothing.
  const leadTools = lead.conversation.filter((e) => e.role === 'tool' && e.turn === 1);
  expect(leadTools.map((e) => `${e.toolName}:${e.ok}`)).toEqual(['create_task:false', 'create_task:true', 'spawn_teammate:true']);
  expect(toolResult(leadTools[0]!)).toMatchObject({ error: 'InvalidToolArguments' });
  const alice = await eventually(
    () => teammateState(operator, 'alice'),
    (s) => s.status === 'idle',
  );
  const aliceTools = alice.conversation.filter((e) => e.role === 'tool');
  expect(aliceTools.map((e) => `${e.toolName}:${e.ok}`)).toEqual(['create_task:false', 'create_task:true', 'send_message:true']);
  expect(toolResult(aliceTools[0]!)).toMatchObject({ error: 'InvalidToolArguments' });

  // The operator creates under its own name; every task names who really wrote it.
  const created = await operator.createTask({ subject: 'asked for by a person' });
  expect(created.task.createdBy).toBe(OPERATOR);
  const before = await operator.view();
  expect(before.tasks.map((t) => [t.subject, t.createdBy])).toEqual([
    ['planned by the Lead', LEAD],
    ['written by alice', 'alice'],
    ['asked for by a person', OPERATOR],
  ]);

  // It owns no tasks: a claim is refused with a next step, and the Team is unchanged.
  const claim = await rejectionOf(operator.claimTask({ taskId: created.task.id, expectedRevision: created.task.revision }));
  expect(claim.type).toBe('NotATeamMember');
  expect(claim.message).toMatch(/assign task/);
  // The Lead's authority: it assigns the task to alice, which a teammate could not do.
  const assigned = await operator.assignTask({ taskId: created.task.id, expectedRevision: created.task.revision, owner: 'alice' });
  expect(assigned.task.owner).toBe('alice');
  expect((await rejectionOf(operator.as('alice').assignTask({ taskId: 1, expectedRevision: 1, owner: 'alice' }))).type).toBe('LeadOnly');

  // Its message reaches alice attributed to the operator, and starts her next turn.
  await operator.sendMessage('alice', { script: [{ answer: 'noted, operator' }] }, 'from-a-person');
  const heard = await eventually(
    () => teammateState(operator, 'alice'),
    (s) => s.conversation.some((e) => e.messageId === 'from-a-person') && s.status === 'idle',
  );
  expect(heard.conversation.find((e) => e.messageId === 'from-a-person')).toMatchObject({ role: 'user', from: OPERATOR });

  // Nothing failed on the way: no workflow task of the Lead or of alice failed.
  for (const workflowId of [teamId, teammateWorkflowId(teamId, 'alice')]) {
    const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  }
  await operator.dispose();
});
