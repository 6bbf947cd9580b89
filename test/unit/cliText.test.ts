/**
 * What the CLI prints of a Team reaches the terminal inert (cli/format.ts, shared/text/inertText.ts): a
 * task subject, a message, a name or an answer a model wrote cannot write the clipboard (OSC 52),
 * clear the screen (CSI 2J, or the one-byte C1 CSI U+009B), or reorder what is shown (RLO). Every
 * test builds the Team text an attacker would, through the real board code where there is one, and
 * runs the real formatting functions.
 */
import { NO_MEMBER_USAGE } from '../../shared/agent/usage';
import { formatAgentView, formatConversation, formatEdge, formatHealth, formatInbox, formatRoster, formatTasks, progressLine } from '../../cli/format';
import type { ConversationEntry, LeadAgentView } from '../../shared/contract';
import { REPLACEMENT, terminalJson, terminalText } from '../../shared/text/inertText';
import { applyLeadAll, decideSettle, decideSpawnTeammate, emptyLeadState, parseSpawn, type LeadState } from '../../shared/lead';
import { decideTask, teamView } from '../../shared/team';
import { LEAD } from '../../shared/contract';

const NOW = '2026-12-01T00:00:00.000Z';
const OSC52 = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const C1_CSI = '\u009b2J';
const RLO = '\u202e';
/** A subject carrying every attack at once, and text around it a person should still read. */
const HOSTILE = `Fix the parser${OSC52}${CLEAR}${C1_CSI} see ${RLO}txt.exe\u2066\u200f\u061c done\u007f`;

/** Anything a terminal acts on: C0 but tab and newline, DEL, C1, and the bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectInert(printed: string): void {
  expect(printed).not.toMatch(ACTIVE);
  expect(printed).not.toContain('\u001b');
  expect(printed).not.toContain('\u0007');
}

function withHostileTask(): LeadState {
  let state = emptyLeadState('t', 8);
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name: 'mallory', message: 'start' }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  state = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(state, 'mallory', { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  state = applyLeadAll(state, settle.events, NOW);
  // The board takes the subject as written: only the print boundary stands between it and a terminal.
  const create = decideTask(
    state.team,
    { kind: 'createTask', subject: HOSTILE, description: '', dependencies: [], writeScopes: [] },
    { caller: LEAD, now: NOW },
  );
  if (!create.ok) throw new Error(create.rejection.message);
  return applyLeadAll(state, create.events, NOW);
}

const agentView = (finalAnswer: string | null, conversation: ConversationEntry[] = []): LeadAgentView => ({
  enabled: true,
  profile: 'team',
  status: 'answered',
  turns: 2,
  cwd: `src${RLO}`,
  finalAnswer,
  openTasksAtAnswer: [],
  lastError: null,
  usage: NO_MEMBER_USAGE,
  subagents: [],
  conversation,
});

describe('CLI output of Team text carries no terminal control', () => {
  test('a task subject with OSC 52, CSI 2J, a C1 CSI and RLO prints in `tasks` as visible text on one row', () => {
    const state = withHostileTask();
    expect(teamView(state.team).tasks[0]?.subject).toContain(OSC52); // the attack reached the board
    const printed = formatTasks(teamView(state.team).tasks);
    expectInert(printed);
    const rows = printed.split('\n');
    expect(rows).toHaveLength(2);
    // What is left reads as the subject, each removed control a visible U+FFFD.
    expect(rows[1]).toContain(`Fix the parser${REPLACEMENT}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==${REPLACEMENT}${REPLACEMENT}[2J`);
    expect(rows[1]).toContain(`${REPLACEMENT}2J see ${REPLACEMENT}txt.exe`);
    // The column after the subject starts where the header says it does: no control shifted it.
    expect(rows[1]!.indexOf('-', rows[0]!.indexOf('OVERLAPS'))).toBe(rows[0]!.indexOf('OVERLAPS'));
  });

  test('a line break or tab in a one-line cell does not break the row or shift the columns', () => {
    const state = withHostileTask();
    const task = { ...teamView(state.team).tasks[0]!, subject: 'first\nsecond\tthird\r' };
    const printed = formatTasks([task]);
    expect(printed.split('\n')).toHaveLength(2);
    expect(printed).toContain('first second third');
    expect(printed).not.toMatch(/[\t\r]/);
  });

  test('the roster, edges, inbox, progress and health lines are inert too', () => {
    const state = withHostileTask();
    const view = teamView(state.team);
    const mallory = { ...view.members[0]!, workflowId: `t/teammate/mallory${CLEAR}` };
    expectInert(formatRoster({ ...view, members: [mallory] }, { mallory: 'idle' }));
    const edge = { seq: 4, kind: 'task' as const, subject: `task 1 ${OSC52}`, at: NOW };
    expectInert(formatEdge(edge));
    expectInert(progressLine(agentView(null), edge, {}) ?? '');
    const inbox = formatInbox([
      { messageId: 'm1', from: 'mallory', content: `hi${OSC52}${C1_CSI}${RLO}`, sentAt: NOW },
      { messageId: 'm2', from: 'mallory', content: { note: `${CLEAR}\u0085` }, sentAt: NOW },
    ]);
    expectInert(inbox);
    expect(inbox.split('\n')).toHaveLength(2);
    const health = formatHealth(
      {
        teamId: 't',
        status: 'RUNNING',
        runId: 'r',
        taskQueue: 'q',
        historyLength: 9,
        workflowTaskAttempt: 3,
        pollers: 1,
        lastWorkflowTaskFailure: `task ${HOSTILE} failed\nat line 2`,
      },
      'wait',
      null,
    );
    expectInert(health);
    expect(health.split('\n')).toHaveLength(6);
  });

  test('a final answer and a conversation keep their line breaks, and lose every control', () => {
    const answer = formatAgentView('t', agentView(`Done.\n\n- ${HOSTILE}\r\n- next\rhidden`));
    expectInert(answer);
    expect(answer).toContain('Done.\n\n- Fix the parser');
    expect(answer).toContain(`- next${REPLACEMENT}hidden`);
    const entries: ConversationEntry[] = [
      { role: 'user', from: `mallory${RLO}`, content: `line one\n${HOSTILE}`, turn: 1 },
      { role: 'tool', toolName: `bash${CLEAR}`, ok: true, content: { stdout: `${OSC52}ok` }, turn: 1 },
      { role: 'assistant', content: 'fine', toolCalls: [{ id: 'c', name: `x${C1_CSI}`, argumentsJson: '{}' }], turn: 2 },
    ];
    const full = formatConversation(entries, { full: true });
    expectInert(full);
    expect(full).toContain(':\n    line one\n    Fix the parser');
    const short = formatConversation(entries, { width: 400 });
    expectInert(short);
    expect(short.split('\n')).toHaveLength(3);
  });
});

describe('the sanitizer at the print boundary', () => {
  test('one-line text replaces every control with U+FFFD and line layout with spaces; a block keeps newlines and tabs', () => {
    expect(terminalText(`a${OSC52}b`, 'line')).toBe(`a${REPLACEMENT}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==${REPLACEMENT}b`);
    expect(terminalText('a\nb\tc\rd', 'line')).toBe('a b c d');
    expect(terminalText('a\r\nb\tc\rd\u009b', 'block')).toBe(`a\nb\tc${REPLACEMENT}d${REPLACEMENT}`);
    for (const c of ['\u0000', '\u001b', '\u007f', '\u0080', '\u009f', '\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069']) {
      expect([c, terminalText(c, 'line'), terminalText(c, 'block')]).toEqual([c, REPLACEMENT, REPLACEMENT]);
    }
    expect(terminalText('ünïcode, 漢字, emoji 🙂 stay', 'line')).toBe('ünïcode, 漢字, emoji 🙂 stay');
  });

  test('--json output escapes the C1 and bidi controls JSON.stringify leaves raw, and parses back to the same value', () => {
    const value = { subject: HOSTILE, nested: [`${C1_CSI}${RLO}\u0085`] };
    expect(JSON.stringify(value)).toMatch(ACTIVE); // what the CLI printed before
    const printed = terminalJson(value);
    expectInert(printed);
    expect(JSON.parse(printed)).toEqual(value);
    expect(printed).toContain('\\u009b2J');
    expect(printed).toContain('\\u202e');
    expect(terminalJson(undefined)).toBe('null');
  });
});
