/**
 * read_roster shows the Lead pseudo-row, as getTeamView does: the row exists by identity (no
 * roster record), carries the Lead agent's status when there is a Lead agent and null otherwise,
 * and the members follow with their durable phase and live status. The output is the compact JSON
 * the model reads.
 */
import { runTeamToolCall } from '../../shared/agent/dispatch';
import type { TeamToolContext } from '../../shared/agent/teamTools';
import type { AgentStatus, LiveStatus } from '../../shared/contract';
import { apply, emptyTeamState, teamView, type TeamState } from '../../shared/team';

const at = (n: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

function context(state: TeamState, leadStatus: AgentStatus | null, liveStatus: Record<string, LiveStatus>, caller = 'alice'): TeamToolContext {
  return {
    caller,
    update: () => Promise.reject(new Error('read_roster sends no Update')),
    roster: () => Promise.resolve({ view: teamView(state, leadStatus), liveStatus }),
  };
}

async function readRoster(ctx: TeamToolContext): Promise<{ ok: boolean; text: string; value: Record<string, unknown> }> {
  const result = await runTeamToolCall({ id: 'c1', name: 'read_roster', argumentsJson: '{}' }, ctx);
  return { ok: result.ok, text: result.text, value: JSON.parse(result.text) as Record<string, unknown> };
}

describe('read_roster shows the Lead pseudo-row', () => {
  it("an empty Team's roster still has the Lead row, before any durable Team event", async () => {
    const { ok, value } = await readRoster(context(emptyTeamState('team-1'), null, {}));
    expect(ok).toBe(true);
    expect(value).toEqual({
      maxMembers: 8,
      admission: 'open',
      lead: { name: 'lead', role: 'lead', phase: 'active', status: null },
      members: [],
    });
  });

  it("the Lead row carries the Lead agent's status; members keep their phase and live status", async () => {
    let state = emptyTeamState('team-1', 3);
    state = apply(state, { type: 'memberProvisioning', name: 'alice', context: 'fresh', workflowId: 'team-1/alice', model: null, at: at(1) });
    state = apply(state, { type: 'memberActivated', name: 'alice', at: at(2) });
    state = apply(state, { type: 'memberProvisioning', name: 'bob', context: 'fork', workflowId: 'team-1/bob', model: 'm1', at: at(3) });
    state = apply(state, { type: 'memberFailed', name: 'bob', reason: 'reconciliation gave up after its retries: boom', at: at(4) });
    const { text, value } = await readRoster(context(state, 'running', { alice: 'idle' }));
    expect(value).toEqual({
      maxMembers: 3,
      admission: 'open',
      lead: { name: 'lead', role: 'lead', phase: 'active', status: 'running' },
      members: [
        { name: 'alice', phase: 'active', context: 'fresh', model: null, status: 'idle', failure: null },
        { name: 'bob', phase: 'failed', context: 'fork', model: 'm1', status: null, failure: 'reconciliation gave up after its retries: boom' },
      ],
    });
    // Compact JSON, the Lead row before the members.
    expect(text).toBe(
      '{"maxMembers":3,"admission":"open","lead":{"name":"lead","role":"lead","phase":"active","status":"running"},' +
        '"members":[{"name":"alice","phase":"active","context":"fresh","model":null,"status":"idle","failure":null},' +
        '{"name":"bob","phase":"failed","context":"fork","model":"m1","status":null,' +
        '"failure":"reconciliation gave up after its retries: boom"}]}',
    );
  });

  it.each<AgentStatus>(['running', 'waiting', 'idle', 'answered', 'failed'])('every Lead agent status is a valid result (%s)', async (status) => {
    const { ok, value } = await readRoster(context(emptyTeamState('team-1'), status, {}, 'lead'));
    expect(ok).toBe(true);
    expect(value.lead).toEqual({ name: 'lead', role: 'lead', phase: 'active', status });
  });
});
