/**
 * Plain-text tables and lines for the CLI. Models and callers wrote most of what these show
 * (subjects, names, messages, answers), so every such text passes terminalText
 * (shared/text/inertText.ts): a table cell or one-line field on one line, a body with its line breaks,
 * and no control character either way, so nothing printed can drive the terminal.
 */
import type { ConversationEntry, LeadAgentView, LiveStatus, TeamUsageView, UsageTotals } from '../shared/contract';
import { TOKEN_KINDS } from '../shared/contract/usage';
import { BUDGET_DIMENSIONS, type BudgetLimits } from '../shared/contract/budgets';
import { own } from '../shared/util/own';
import { terminalText } from '../shared/text/inertText';
import { redactAddress } from '../shared/text/redact';
import type { JsonValue } from '../shared/contract/json';
import type { InboxMessage, TaskView, TeamEdge, TeamView } from '../shared/contract/team';
import type { TeamHealth } from '../client/deadlines';

/** One line of Team text: its control characters replaced, its line breaks and tabs spaces. */
const line = (text: string): string => terminalText(text, 'line');

/** Every cell is one line, so no cell breaks its row or shifts the columns after it. */
function table(cells: string[][]): string {
  const rows = cells.map((r) => r.map(line));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `usage`: null when the Lead could not say (a worker too old to answer getTeamUsage): those columns stay empty. */
export function formatRoster(view: TeamView, live: Record<string, LiveStatus>, usage: TeamUsageView | null = null): string {
  const rows = [['NAME', 'ROLE', 'PHASE', 'LIVE', 'TOKENS', 'COST', 'WORKFLOW ID']];
  const spent = (name: string): string[] => {
    const row = usage?.members.find((m) => m.name === name);
    return row ? [String(row.total.inputTokens + row.total.outputTokens), dollars(row.costUsd)] : ['', ''];
  };
  rows.push([view.lead.name, 'lead', view.lead.phase, view.lead.status ?? '', ...spent(view.lead.name), view.teamId]);
  for (const m of view.members) rows.push([m.name, 'teammate', m.phase, own(live, m.name) ?? '', ...spent(m.name), m.workflowId]);
  return table(rows);
}

/** `usage`: tokens of each kind and cost per member, then the Team's total (naming the members whose model has no price). */
export function formatUsage(usage: TeamUsageView): string {
  const rows = [['NAME', 'ROLE', 'MODEL', 'CALLS', 'INPUT', 'CACHE READ', 'CACHE WRITE', 'OUTPUT', 'REASONING', 'COST']];
  const figures = (t: UsageTotals): string[] => [t.calls, ...TOKEN_KINDS.map((kind) => t[kind])].map(String);
  for (const m of usage.members) rows.push([m.name, m.role, m.model ?? '(default)', ...figures(m.total), dollars(m.costUsd)]);
  const unpriced = usage.unpriced.length > 0 ? ` (no price for: ${usage.unpriced.join(', ')})` : '';
  rows.push(['TEAM', '', '', ...figures(usage.total), `${dollars(usage.costUsd)}${unpriced}`]);
  return usage.teamBudget ? `${table(rows)}\n${teamBudgetLine(usage.teamBudget)}` : table(rows);
}

/** `Team budget: calls 9, tokens 5000 (room left)`, or which cap the Team's total has reached. */
function teamBudgetLine({ limits, exhausted }: NonNullable<TeamUsageView['teamBudget']>): string {
  if (!exhausted) return `Team budget: ${describeBudget(limits)} (room left)`;
  const figures = exhausted.budget === 'costUsd' ? `${dollars(exhausted.used)} of ${dollars(exhausted.limit)}` : `${exhausted.used} of ${exhausted.limit}`;
  return `Team budget: ${describeBudget(limits)} (${exhausted.budget} used up: ${figures}; the operator raises it with budget <teamId> @team)`;
}

/** `calls 40, tokens 200000, cost $2.5000` (`no caps` for an empty one). */
export function describeBudget(budget: BudgetLimits): string {
  const caps = BUDGET_DIMENSIONS.filter((d) => budget[d] !== undefined).map((d) => (d === 'costUsd' ? `cost ${dollars(budget[d] ?? 0)}` : `${d} ${budget[d]}`));
  return caps.length > 0 ? caps.join(', ') : 'no caps';
}

/** US dollars to the hundredth of a cent (a short turn costs less than a cent); `-` without a price. */
function dollars(usd: number | null): string {
  return usd === null ? '-' : `$${usd.toFixed(4)}`;
}

export function formatTasks(tasks: TaskView[]): string {
  if (tasks.length === 0) return '(no tasks)';
  const rows = [['ID', 'REV', 'STATUS', 'OWNER', 'READY', 'DEPS', 'SUBJECT', 'OVERLAPS']];
  for (const t of tasks) {
    rows.push([
      String(t.id),
      String(t.revision),
      t.status,
      t.owner ?? '-',
      t.ready ? 'yes' : 'no',
      t.dependencies.join(',') || '-',
      t.subject,
      t.overlaps.map((o) => `#${o.taskId}`).join(',') || '-',
    ]);
  }
  return table(rows);
}

export function formatEdge(edge: TeamEdge): string {
  return line(`#${edge.seq} ${edge.at} ${edge.kind} ${edge.subject}`);
}

/** `inbox`: one line per message, its sender and its content as JSON. */
export function formatInbox(messages: InboxMessage[]): string {
  if (messages.length === 0) return '(no messages)';
  return messages.map((m) => line(`${m.from}: ${JSON.stringify(m.content)}`)).join('\n');
}

/** One line per conversation entry: turn, role, sender or tool, and the content (truncated unless `full`). */
export function formatConversation(entries: ConversationEntry[], options: { width?: number; full?: boolean } = {}): string {
  if (entries.length === 0) return '(no conversation yet)';
  const width = options.width ?? 160;
  return entries
    .map((entry) => {
      const who = conversationSource(entry);
      const head = `t${entry.turn} ${entry.role}${who ? ` ${who}` : ''}`;
      const calls = entry.toolCalls?.length ? ` -> ${entry.toolCalls.map((c) => c.name).join(', ')}` : '';
      const receipts = entry.receipts?.length ? ` [sends: ${entry.receipts.map((r) => (r.ok ? `${r.acceptance.to} ok` : `${r.type}`)).join(', ')}]` : '';
      const text = contentText(entry.content);
      const title = line(`${head}${calls}${receipts}`);
      if (options.full) return `${title}${text ? `:\n    ${terminalText(text, 'block').split('\n').join('\n    ')}` : ''}`;
      const one = `${title}${text ? `: ${line(text).replace(/\s+/g, ' ').trim()}` : ''}`;
      return one.length > width ? `${one.slice(0, Math.max(0, width - 1))}…` : one;
    })
    .join('\n');
}

function conversationSource(entry: ConversationEntry): string {
  if (entry.role === 'user') return entry.from ? `from ${entry.from}` : '';
  if (entry.role === 'tool') return `${entry.toolName ?? 'tool'}${entry.ok === false ? ' FAILED' : ''}`;
  return '';
}

function contentText(content: JsonValue): string {
  if (content === null) return '';
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** The Lead agent in a few lines: status, turns, cwd, and the final answer when there is one. */
export function formatAgentView(teamId: string, view: LeadAgentView): string {
  if (!view.enabled) return line(`Team ${teamId}: the Lead is operator-driven (started without a prompt); it gives no answer`);
  const lines = [line(`Team ${teamId}: Lead agent ${view.status}, ${view.turns} turn${view.turns === 1 ? '' : 's'}, profile ${view.profile}, cwd ${view.cwd}`)];
  if (view.finalAnswer !== null) {
    if (view.openTasksAtAnswer.length > 0) lines.push(`open tasks when it answered: ${view.openTasksAtAnswer.map((id) => `#${id}`).join(', ')}`);
    // The answer is a body: its line breaks are its layout.
    lines.push('', terminalText(view.finalAnswer, 'block'));
  } else {
    lines.push(line(`no final answer yet; wait for it with: agent-teams answer ${teamId} --wait`));
  }
  return lines.join('\n');
}

/** A progress line while waiting for the Lead's answer, or null when nothing worth printing changed. */
export function progressLine(view: LeadAgentView, edge: TeamEdge | null, last: { status?: string; turns?: number }): string | null {
  const parts: string[] = [];
  if (edge && !(edge.kind === 'status' && edge.subject.startsWith('lead:'))) parts.push(formatEdge(edge));
  if (view.status !== last.status || view.turns !== last.turns) {
    parts.push(line(`lead: ${view.status}, turn ${view.turns}`));
    last.status = view.status;
    last.turns = view.turns;
  }
  return parts.length > 0 ? parts.join(' | ') : null;
}

/**
 * The Web UI page of a workflow: TEMPORAL_UI_URL when set, the local dev server's UI for a local
 * address (TEMPORAL_UI_PORT, default 8233), Temporal Cloud's UI for *.tmprl.cloud; otherwise null.
 * Redacted as webUiPage says.
 */
export function webUiLink(address: string, namespace: string, workflowId: string, env: NodeJS.ProcessEnv = process.env): string | null {
  return webUiPage(webUiBase(address, env), `/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`);
}

/** The Web UI's workflow list filtered to one Team: the Lead, its teammates and subagents (`AgentTeamId = "<teamId>"`). */
export function webUiTeamLink(address: string, namespace: string, teamId: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const query = `AgentTeamId = "${teamId.replace(/["\\]/g, '\\$&')}"`;
  return webUiPage(webUiBase(address, env), `/namespaces/${encodeURIComponent(namespace)}/workflows`, `query=${encodeURIComponent(query)}`);
}

/**
 * A page under the Web UI's base URL, as people are shown it (the CLI's lines and --json, the
 * panel, `npm start`): the base's credentials redacted (shared/text/redact.ts redactAddress: its
 * `user:password@`, whatever its characters, and secret query values such as `?token=` read
 * ***), its host, path and other query parameters kept, and the page's path put before the
 * base's query, so the link still opens the page.
 */
function webUiPage(base: string | null, path: string, query?: string): string | null {
  if (!base) return null;
  const shown = redactAddress(base);
  const queryAt = shown.search(/[?#]/);
  const root = (queryAt === -1 ? shown : shown.slice(0, queryAt)).replace(/\/+$/, '');
  const baseQuery = queryAt !== -1 && shown[queryAt] === '?' ? shown.slice(queryAt + 1).split('#')[0]! : '';
  const params = [query, baseQuery].filter(Boolean).join('&');
  return `${root}${path}${params ? `?${params}` : ''}`;
}

function webUiBase(address: string, env: NodeJS.ProcessEnv): string | null {
  let base = env.TEMPORAL_UI_URL?.replace(/\/+$/, '');
  if (!base) {
    const host = address.replace(/^\[?([^\]]*?)\]?(:\d+)?$/, '$1').toLowerCase();
    if (['localhost', '127.0.0.1', '0.0.0.0', '::1'].includes(host))
      base = `http://${host === '0.0.0.0' || host === '::1' ? '127.0.0.1' : host}:${env.TEMPORAL_UI_PORT || 8233}`;
    else if (host.endsWith('.tmprl.cloud')) base = 'https://cloud.temporal.io';
  }
  return base ?? null;
}

/** `agent-teams status`: the Lead's run, its task queue and workers, its workflow task, and the advice. */
export function formatHealth(health: TeamHealth, advice: string, webUi: string | null): string {
  const pollers = health.pollers === null ? 'workers polling it: unknown' : `${health.pollers} worker${health.pollers === 1 ? '' : 's'} polling it`;
  let task = 'workflow task: none pending';
  if (health.workflowTaskAttempt !== null) {
    task = health.workflowTaskAttempt > 1 ? `workflow task: failing, attempt ${health.workflowTaskAttempt}` : 'workflow task: pending (attempt 1)';
    // A workflow task failure's message may quote Team text (a subject, a name).
    if (health.lastWorkflowTaskFailure) task += `\nlast workflow task failure: ${line(health.lastWorkflowTaskFailure)}`;
  }
  return [
    line(`Team ${health.teamId}: ${health.status} (run ${health.runId}, ${health.historyLength} history events)`),
    line(`task queue: ${health.taskQueue} (${pollers})`),
    task,
    line(`next: ${advice}`),
    line(`Web UI: ${webUi ?? `set TEMPORAL_UI_URL to print a link (workflow id ${health.teamId})`}`),
  ].join('\n');
}
