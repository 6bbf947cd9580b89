/**
 * The floor rows of `npm run bench` (issue 28's method; `npm run bench:floor` runs only these): the
 * Team against bare-Temporal workflows doing the same thing, on one dev server with the project's
 * server settings. The project's worker runs in its own process (worker/main.ts, scripted model);
 * the bare workflows (bench/floorBaselines.ts) run on their own task queue in this process.
 *
 *  - editTask p50 vs a bare CAS Update with a validator; getTask (query) p50 vs a bare query of a
 *    small state: interleaved blocks of 10 operations, N per side, p50 of every operation's latency.
 *    A third side sends the same editTask and getTask to the same Lead through the SDK alone
 *    (executeUpdate, query), which splits the gap into the TeamClient's call engine and the rest.
 *  - 64 racing claims (32 members, two callers each, one task at one revision, raw SDK callers as
 *    the members' workflows call) vs 64 racing bare CAS Updates at one revision: time until every
 *    caller has its answer, median of 21 rounds, exactly one winner per round on both sides; and, in
 *    this process, what one refusal's failure costs to build and convert (bench/failures.ts).
 *  - 200 concurrent sendMessage to 3 idle teammates vs 200 bare relay Updates that signal one of 3
 *    workflows and return once the signal has landed, both through the TeamClient's per-workflow
 *    in-flight limit: time until all returned, median of 3 rounds. Then, from the histories, what
 *    each side's sender and targets wrote per send (workflow tasks, events, bytes), how long the
 *    senders' tasks took and their signals took to land, and from the server's metrics how many
 *    deliveries it tried again on a busy workflow; and one round of 200 sends to 3 teammates
 *    mid-turn, so that no send starts a turn: the send path without the teammates' reactions.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { TeamClient, withUpdateSlot } from '../client/teamClient';
import { LEAD, claimTaskUpdate, editTaskUpdate, getTaskQuery } from '../shared/contract';
import { spawnWorkerProcess } from '../test/support/workerProcess';
import { casUpdate, finishSignal, landedQuery, readCasQuery, relayUpdate } from './floorBaselines';
import { allIdle, allInStatus, allNowInStatus } from './teamReady';
import { runOnItsOwn } from './standalone';
import { answer, script, think } from '../activities/providers/scriptedModelScript';
import { historyMarks, workflowTaskTimes } from './workflowTasks';
import { refusedUpdateFailureMicros } from './failures';
import { countsSince, signalTaskCounts, type SignalTaskCounts } from './serverMetrics';
import { teammateWorkflowId } from '../shared/team/roster';
import { otherCheckoutsWorker } from './otherCheckout';

const N = Number(process.env.BENCH_FLOOR_OPS ?? 300);
const BLOCK = 10;
/** 21 by default: a round takes a fraction of a second, and 7 rounds' medians moved the ratio from 0.84 to 1.71 between runs. */
const RACE_ROUNDS = Number(process.env.BENCH_FLOOR_RACE_ROUNDS ?? 21);
const MEMBERS = 32;
const SEND_ROUNDS = Number(process.env.BENCH_FLOOR_SEND_ROUNDS ?? 3);
const SENDS = 200;
/** How long the busy teammates' model call thinks: longer than 200 sends take. */
const BUSY_MS = 60_000;
const TEAM_QUEUE = 'bench-floor-team';
const BARE_QUEUE = 'bench-floor-bare';

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)] ?? NaN;
const median = (xs: number[]): number => quantile(xs, 0.5);
const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const timed = async (op: () => Promise<unknown>): Promise<number> => {
  const start = process.hrtime.bigint();
  await op();
  return since(start);
};

/**
 * Interleaved blocks of BLOCK operations until each side has N latencies. The order of the sides
 * rotates by one every block, so each side goes first, last and between equally often.
 */
async function interleaved<K extends string>(sides: Record<K, () => Promise<unknown>>): Promise<Record<K, number[]>> {
  const names = Object.keys(sides) as K[];
  const out = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  // One at a time: two sides may act on the same state (the Team's editTask through the TeamClient and the SDK).
  for (let warm = 0; warm < BLOCK; warm++) for (const name of names) await sides[name]();
  for (let block = 0; out[names[0]!].length < N; block++) {
    const first = block % names.length;
    for (const name of [...names.slice(first), ...names.slice(0, first)]) for (let i = 0; i < BLOCK; i++) out[name].push(await timed(sides[name]));
  }
  return out;
}

const row = (measure: string, team: number, floor: number, digits: number): string[] => [
  measure,
  team.toFixed(digits),
  floor.toFixed(digits),
  floor === 0 ? '—' : (team / floor).toFixed(2),
];

/** Deliveries the server tried again because a workflow's lock stayed taken (bench/serverMetrics.ts), per 100. */
const perHundred = ({ delivered, busyWorkflow }: SignalTaskCounts): number => (100 * busyWorkflow) / Math.max(1, delivered);
const busyRow = (during: string): string =>
  `signal deliveries the server tried again on a busy workflow, per 100 deliveries: during ${during} vs during the relays`;

/**
 * Runs the floor rows against the dev server at `address`; returns the table rows (Team, floor,
 * ratio). With `metricsUrl` (DevServer.metricsUrl), the send rows also count the signal deliveries
 * the server had to try again because a workflow's lock stayed taken (bench/serverMetrics.ts).
 */
export async function benchFloor(address: string, metricsUrl?: string): Promise<string[][]> {
  const stamp = Date.now();
  console.log('  floor: starting the project worker in its own process and the bare workflows in this one…');
  const teamWorker = await spawnWorkerProcess(TEAM_QUEUE, { address, ...otherCheckoutsWorker() });
  const bareConnection = await NativeConnection.connect({ address });
  const bareWorker = await Worker.create({ connection: bareConnection, taskQueue: BARE_QUEUE, workflowsPath: require.resolve('./floorBaselines') });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const bare: Array<WorkflowHandle> = [];
  const startBare = async (type: string, id: string): Promise<WorkflowHandle> => {
    const handle = await client.workflow.start(type, { taskQueue: BARE_QUEUE, workflowId: `bench-bare-${id}-${stamp}` });
    bare.push(handle);
    return handle;
  };
  const rows: string[][] = [];
  try {
    await bareWorker.runUntil(async () => {
      // editTask and getTask
      const team = await TeamClient.start(client, { teamId: `bench-floor-ops-${stamp}`, taskQueue: TEAM_QUEUE });
      let { task } = await team.createTask({ subject: 'bench' });
      const cas = await startBare('casFloor', 'ops');
      let revision = 0;
      let edits = 0;
      // The same Lead through the SDK's executeUpdate and query alone: what the TeamClient's call engine
      // (deadline, update slot, retries, typed errors) adds, apart from what the Lead's activation does.
      const lead = client.workflow.getHandle(team.teamId);
      const mutations = await interleaved({
        team: async () => void ({ task } = await team.editTask({ taskId: task.id, expectedRevision: task.revision, description: `d${edits++}` })),
        sdk: async () =>
          void ({ task } = await lead.executeUpdate(editTaskUpdate, {
            args: [{ taskId: task.id, expectedRevision: task.revision, description: `d${edits++}`, caller: LEAD }],
          })),
        floor: async () => void (revision = await cas.executeUpdate(casUpdate, { args: [{ expectedRevision: revision, value: `d${revision}` }] })),
      });
      console.log(
        `  floor: editTask p50 ${median(mutations.team).toFixed(2)} ms (SDK alone ${median(mutations.sdk).toFixed(2)}), ` +
          `CAS Update p50 ${median(mutations.floor).toFixed(2)} ms`,
      );
      rows.push(row(`editTask p50, ${N} in blocks of ${BLOCK} (ms) vs a bare CAS Update with a validator`, median(mutations.team), median(mutations.floor), 2));
      rows.push(
        row(`the same editTask through the SDK's executeUpdate, no TeamClient (ms) vs the same CAS Update`, median(mutations.sdk), median(mutations.floor), 2),
      );
      const reads = await interleaved({
        team: () => team.task(task.id),
        sdk: () => lead.query(getTaskQuery, { taskId: task.id }),
        floor: () => cas.query(readCasQuery),
      });
      console.log(
        `  floor: getTask p50 ${median(reads.team).toFixed(2)} ms (SDK alone ${median(reads.sdk).toFixed(2)}), ` +
          `bare query p50 ${median(reads.floor).toFixed(2)} ms`,
      );
      rows.push(row(`getTask query p50, ${N} in blocks of ${BLOCK} (ms) vs a bare query of a small state`, median(reads.team), median(reads.floor), 2));
      rows.push(row(`the same getTask through the SDK's query, no TeamClient (ms) vs the same bare query`, median(reads.sdk), median(reads.floor), 2));
      await team.dispose();

      // 64 racing claims
      const racers = await TeamClient.start(client, { teamId: `bench-floor-race-${stamp}`, taskQueue: TEAM_QUEUE, maxMembers: MEMBERS });
      const members = Array.from({ length: MEMBERS }, (_, i) => `m${i}`);
      await Promise.all(members.map((name) => racers.spawnTeammate({ name, message: 'ready' })));
      await allIdle(racers, members);
      const raceTeam: number[] = [];
      const raceFloor: number[] = [];
      for (let round = 0; round < RACE_ROUNDS; round++) {
        const { task: contended } = await racers.createTask({ subject: `contended ${round}` });
        const floor = await startBare('casFloor', `race-${round}`);
        const claims = (): Promise<number> =>
          timed(async () => {
            const outcomes = await Promise.allSettled(
              [...members, ...members].map((caller) =>
                racers.handle().executeUpdate(claimTaskUpdate, { args: [{ taskId: contended.id, expectedRevision: contended.revision, caller }] }),
              ),
            );
            const winners = outcomes.filter((o) => o.status === 'fulfilled').length;
            if (winners !== 1) throw new Error(`racing claims had ${winners} winners`);
          });
        const cases = (): Promise<number> =>
          timed(async () => {
            const outcomes = await Promise.allSettled(
              Array.from({ length: 2 * MEMBERS }, (_, i) => floor.executeUpdate(casUpdate, { args: [{ expectedRevision: 0, value: `${i}` }] })),
            );
            const winners = outcomes.filter((o) => o.status === 'fulfilled').length;
            if (winners !== 1) throw new Error(`racing CAS Updates had ${winners} winners`);
          });
        if (round % 2 === 0) {
          raceTeam.push(await claims());
          raceFloor.push(await cases());
        } else {
          raceFloor.push(await cases());
          raceTeam.push(await claims());
        }
      }
      console.log(
        `  floor: 64 racing claims ${raceTeam.map((x) => x.toFixed(0)).join(', ')} ms; 64 racing CAS ${raceFloor.map((x) => x.toFixed(0)).join(', ')} ms`,
      );
      rows.push(
        row(
          `${2 * MEMBERS} racing claims (${MEMBERS} members x 2, one task, one revision) settled, median of ${RACE_ROUNDS} (ms) vs bare CAS Updates`,
          median(raceTeam),
          median(raceFloor),
          0,
        ),
      );
      // What each of a race's 63 refusals costs the worker to build and convert, in process (bench/failures.ts).
      const [teamFailureUs, floorFailureUs] = refusedUpdateFailureMicros();
      rows.push(
        row(
          "a refused claim's failure, built and converted by the worker's converter (µs) vs the floor's Error with its frames",
          teamFailureUs,
          floorFailureUs,
          1,
        ),
      );
      await racers.dispose();

      // 200 concurrent sends to 3 teammates
      const senders = await TeamClient.start(client, { teamId: `bench-floor-send-${stamp}`, taskQueue: TEAM_QUEUE });
      const targets = ['s0', 's1', 's2'];
      await Promise.all(targets.map((name) => senders.spawnTeammate({ name, message: 'ready' })));
      await allIdle(senders, targets);
      const relay = await startBare('relayFloor', 'relay');
      const sinks = await Promise.all(targets.map((name) => startBare('relaySink', `sink-${name}`)));
      const senderIds = [senders.teamId, ...targets.map((name) => teammateWorkflowId(senders.teamId, name))];
      const floorIds = [relay.workflowId, ...sinks.map((sink) => sink.workflowId)];
      const marks = await historyMarks(client, [...senderIds, ...floorIds]);
      const sendTeam: number[] = [];
      const sendFloor: number[] = [];
      // Signal deliveries the server counted while each side's sends were in flight (the Team's include its teammates' status reports).
      const deliveries = { team: { delivered: 0, busyWorkflow: 0 }, floor: { delivered: 0, busyWorkflow: 0 }, midTurn: { delivered: 0, busyWorkflow: 0 } };
      const counted = async (side: keyof typeof deliveries, measure: () => Promise<number>): Promise<number> => {
        if (!metricsUrl) return measure();
        const before = await signalTaskCounts(metricsUrl);
        const ms = await measure();
        const during = countsSince(before, await signalTaskCounts(metricsUrl));
        deliveries[side] = { delivered: deliveries[side].delivered + during.delivered, busyWorkflow: deliveries[side].busyWorkflow + during.busyWorkflow };
        return ms;
      };
      for (let round = 0; round < SEND_ROUNDS; round++) {
        const sends = (): Promise<number> =>
          counted('team', () =>
            timed(() => Promise.all(Array.from({ length: SENDS }, (_, i) => senders.sendMessage(targets[i % 3]!, `message ${round}-${i}`)))),
          );
        const relays = (): Promise<number> =>
          counted('floor', () =>
            timed(() =>
              Promise.all(
                Array.from({ length: SENDS }, (_, i) =>
                  withUpdateSlot(relay.workflowId, () =>
                    relay.executeUpdate(relayUpdate, { args: [{ to: sinks[i % 3]!.workflowId, content: `message ${round}-${i}` }] }),
                  ),
                ),
              ),
            ),
          );
        if (round % 2 === 0) {
          sendTeam.push(await sends());
          sendFloor.push(await relays());
        } else {
          sendFloor.push(await relays());
          sendTeam.push(await sends());
        }
        await allIdle(senders, targets);
      }
      const landed = (await Promise.all(sinks.map((sink) => sink.query(landedQuery)))).reduce((a, b) => a + b, 0);
      if (landed !== SENDS * SEND_ROUNDS) throw new Error(`the relay landed ${landed} signals, not ${SENDS * SEND_ROUNDS}`);
      console.log(`  floor: 200 sends ${sendTeam.map((x) => x.toFixed(0)).join(', ')} ms; 200 relays ${sendFloor.map((x) => x.toFixed(0)).join(', ')} ms`);
      // Where a send's time goes: the workflow tasks each side's sender and targets completed per send,
      // the events they wrote (the dev server persists each one), and how long the sender's tasks took
      // from started to completed as its history records them.
      const times = await workflowTaskTimes(client, marks);
      if (times) {
        const perSend = (ids: string[], what: 'completed' | 'events' | 'bytes' = 'completed'): number =>
          ids.reduce((sum, id) => sum + times.get(id)![what], 0) / (SENDS * SEND_ROUNDS);
        const [lead, ...mates] = senderIds;
        const [relayId, ...sinkIds] = floorIds;
        rows.push(row('workflow tasks per send: the Lead vs the relay', perSend([lead!]), perSend([relayId!]), 2));
        rows.push(row('workflow tasks per send: the teammates vs the signalled workflows', perSend(mates), perSend(sinkIds), 2));
        rows.push(row('history events per send: the Lead vs the relay', perSend([lead!], 'events'), perSend([relayId!], 'events'), 2));
        rows.push(row('history events per send: the teammates vs the signalled workflows', perSend(mates, 'events'), perSend(sinkIds, 'events'), 2));
        rows.push(row('history bytes per send: the teammates vs the signalled workflows', perSend(mates, 'bytes'), perSend(sinkIds, 'bytes'), 0));
        const ran = (ids: string[]): number => median(ids.flatMap((id) => times.get(id)!.ran));
        rows.push(row("the targets' workflow tasks, started to completed: median (ms), the teammates vs the signalled workflows", ran(mates), ran(sinkIds), 1));
        // A signal that waits out a busy workflow's lock lands 500 ms or more late (bench/serverMetrics.ts).
        const landed = (id: string): number[] => times.get(id)!.signalLanded;
        rows.push(row("the sender's signals, initiated to landed: median (ms), the Lead vs the relay", median(landed(lead!)), median(landed(relayId!)), 0));
        rows.push(
          row(
            "the sender's signals, initiated to landed: 90th percentile (ms), the Lead vs the relay",
            quantile(landed(lead!), 0.9),
            quantile(landed(relayId!), 0.9),
            0,
          ),
        );
        rows.push(
          row(
            "the sender's workflow tasks, started to completed: median (ms), the Lead vs the relay",
            median(times.get(lead!)!.ran),
            median(times.get(relayId!)!.ran),
            1,
          ),
        );
      } else console.log('  floor: a run continued as new during the sends: no workflow-task counts');
      if (metricsUrl) {
        const { team, floor } = deliveries;
        const told = (counts: SignalTaskCounts): string => `${counts.delivered} (${counts.busyWorkflow} tried again on a busy workflow)`;
        console.log(`  floor: signal deliveries during the sends ${told(team)}; during the relays ${told(floor)}`);
        rows.push(row(busyRow('the sends'), perHundred(team), perHundred(floor), 1));
      }
      rows.push(
        row(
          `${SENDS} concurrent sendMessage to 3 teammates, all returned, median of ${SEND_ROUNDS} (ms) vs a bare Update relaying a signal`,
          median(sendTeam),
          median(sendFloor),
          0,
        ),
      );
      // The same sends to 3 teammates that are mid-turn (their model call thinks for BUSY_MS), so that
      // no send starts a turn: what the send path costs without the teammates' reactions.
      const busyNames = ['b0', 'b1', 'b2'];
      const busyMessage = JSON.stringify(script(think(BUSY_MS), answer('done')));
      await Promise.all(busyNames.map((name) => senders.spawnTeammate({ name, message: busyMessage })));
      await allInStatus(senders, busyNames, 'running');
      const busy = await counted('midTurn', () =>
        timed(() => Promise.all(Array.from({ length: SENDS }, (_, i) => senders.sendMessage(busyNames[i % 3]!, `busy ${i}`)))),
      );
      const stillBusy = await allNowInStatus(senders, busyNames, 'running');
      console.log(`  floor: 200 sends to busy teammates ${busy.toFixed(0)} ms${stillBusy ? '' : ' (a teammate finished its turn during them: not counted)'}`);
      if (stillBusy && metricsUrl) rows.push(row(busyRow('the sends to teammates mid-turn'), perHundred(deliveries.midTurn), perHundred(deliveries.floor), 1));
      if (stillBusy)
        rows.push(
          row(`${SENDS} concurrent sendMessage to 3 teammates mid-turn (none starts a turn), one round (ms) vs the relay's median`, busy, median(sendFloor), 0),
        );
      await senders.dispose();
      await Promise.all(bare.map((handle) => handle.signal(finishSignal)));
    });
  } finally {
    await teamWorker.stop();
    await bareConnection.close();
    await connection.close();
  }
  return rows;
}

if (require.main === module) {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  console.log(`bench:floor: N=${N} in blocks of ${BLOCK}, ${RACE_ROUNDS} race rounds, ${SEND_ROUNDS} send rounds; starting the dev server…`);
  runOnItsOwn(['Measure', 'Team', 'Floor', 'Ratio'], (server) => benchFloor(server.address, server.metricsUrl));
}
