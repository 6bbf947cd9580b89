/**
 * Issue 27, usage and cost, on the real server. Every completed model call's usage is recorded from
 * the activity result in the member's own state, summed per turn and per member, reported to the
 * Lead, and shown with its cost from the Team's price table. The figures must equal what the
 * histories recorded (every completed callModel across every run of the chain, counted once):
 * across teammates' continue-as-new after every turn, and the Lead's own. The scripted model
 * reports a usage that is a pure function of the request, so the figures are exact.
 */
import { answer, script, scriptText, think, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import { costUsd } from '../../shared/agent/usage';
import type { TeamModels } from '../../shared/contract';
import type { JsonValue } from '../../shared/contract/json';
import { teammateWorkflowId } from '../../shared/team';
import { chainReport, teamWorkflowIds } from '../support/adversarial';
import { cli } from '../support/cli';
import { useClientAndWorker } from '../support/harness';
import { recordedModelUsage } from '../support/recordedUsage';
import { eventually, teammateState } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const LEAD_PRICE = { input: 3, output: 15, cacheRead: 0.3 };
const models: TeamModels = { allowed: ['scripted:lead', 'scripted:mate'], default: 'scripted:lead', prices: { 'scripted:lead': LEAD_PRICE } };
const TURNS = 3;

test("every recorded model call's usage is counted once, per member and per turn, across continue-as-new, with cost where the model is priced", async () => {
  const team = await TeamClient.start(env.client, {
    teamId: uniqueId('usage'),
    taskQueue: env.worker.taskQueue,
    models,
    // Every teammate turn ends its run: each turn's usage must cross a continue-as-new.
    teammateMaxTurnsPerRun: 1,
    agent: { profile: 'team', prompt: scriptText(tool('list_tasks'), answer('the Lead is done')) },
  });
  const turn = (n: number): JsonValue => script(tool('list_tasks'), think(1), tool('read_roster'), answer(`turn ${n} done`)) as unknown as JsonValue;
  await team.spawnTeammate({ name: 'mate', message: turn(1), model: 'scripted:mate' });
  // One message per turn: the next is sent once the turn before has ended (a message that arrived meanwhile would join it).
  for (let n = 2; n <= TURNS; n++) {
    await eventually(
      () => teammateState(team, 'mate'),
      (s) => s.turns === n - 1 && s.status === 'idle',
    );
    await team.sendMessage('mate', turn(n));
  }

  const mateId = teammateWorkflowId(team.teamId, 'mate');
  // Each turn is three calls (two tool steps, a think apart, then the answer); the Lead knows them once the last report arrives.
  const usage = await eventually(
    () => team.usage(),
    (u) => u.members.find((m) => m.name === 'mate')?.total.calls === 3 * TURNS && (u.members[0]?.total.calls ?? 0) >= 2,
  );
  const [leadRecorded, mateRecorded] = await Promise.all([recordedModelUsage(env.client, team.teamId), recordedModelUsage(env.client, mateId)]);
  const lead = usage.members[0];
  const mate = usage.members.find((m) => m.name === 'mate');
  expect(lead).toMatchObject({ name: 'lead', role: 'lead', model: 'scripted:lead', total: leadRecorded });
  expect(mate).toMatchObject({ role: 'teammate', model: 'scripted:mate', total: mateRecorded, costUsd: null });
  expect(mateRecorded.calls).toBe(3 * TURNS);
  expect(mateRecorded.inputTokens).toBeGreaterThan(0);
  expect(lead?.costUsd).toBeCloseTo(costUsd(leadRecorded, LEAD_PRICE), 12);
  expect(usage.costUsd).toBe(lead?.costUsd);
  expect(usage.unpriced).toEqual(['mate']);
  expect(usage.total.inputTokens).toBe(leadRecorded.inputTokens + mateRecorded.inputTokens);

  // The member's own view: the same totals, and its last turn alone (three calls).
  const state = await teammateState(team, 'mate');
  expect(state.continuedRuns).toBeGreaterThanOrEqual(TURNS - 1);
  expect(state.usage.total).toEqual(mateRecorded);
  expect(state.usage.lastTurn).toMatchObject({ turn: TURNS, usage: { calls: 3 } });
  expect((await team.agentState()).usage.total).toEqual(leadRecorded);

  // The CLI: a usage table with tokens and cost per member, and a usage column in the roster.
  const table = await cli('usage', team.teamId);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/^NAME\s+ROLE\s+MODEL\s+CALLS\s+INPUT\s+CACHE READ\s+CACHE WRITE\s+OUTPUT\s+REASONING\s+COST/m);
  expect(table.stdout).toMatch(new RegExp(`^mate\\s+teammate\\s+scripted:mate\\s+${3 * TURNS}\\s+${mateRecorded.inputTokens}\\s.*-$`, 'm'));
  expect(table.stdout).toMatch(new RegExp(`^lead\\s+lead\\s+scripted:lead\\s+${leadRecorded.calls}\\s+${leadRecorded.inputTokens}\\s.*\\$\\d+\\.\\d{4}$`, 'm'));
  expect(table.stdout).toMatch(/^TEAM\s.*\(no price for: mate\)$/m);
  const json = JSON.parse((await cli('--json', 'usage', team.teamId)).stdout) as { total: { calls: number } };
  expect(json.total.calls).toBe(usage.total.calls);
  const roster = await cli('roster', team.teamId);
  expect(roster.stdout).toMatch(/^NAME\s+ROLE\s+PHASE\s+LIVE\s+TOKENS\s+COST\s+WORKFLOW ID/m);
  expect(roster.stdout).toMatch(new RegExp(`^mate\\s+teammate\\s+active\\s+idle\\s+${mateRecorded.inputTokens + mateRecorded.outputTokens}\\s+-\\s`, 'm'));

  for (const id of await teamWorkflowIds(env.client, team.teamId)) {
    const chain = await chainReport(env.client, id);
    expect([id, chain.failedWorkflowTasks, chain.terminatedRuns]).toEqual([id, 0, 0]);
  }
}, 120_000);
