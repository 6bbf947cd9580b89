/**
 * The panel's browser script (plain DOM, no framework). On /teams/<id> it opens the Team's SSE
 * stream and renders each complete view it receives; on / it lists recent Teams once. Every name,
 * id, subject and message is set as text (textContent), never as markup. Compiled for the browser
 * by cli/panel/browserScript.ts; type-checked with tsconfig.browser.json (DOM, no Node).
 */

interface MemberRow {
  name: string;
  context: string;
  phase: string;
  failure: string | null;
  live?: string;
  model: string | null;
  workflowId: string;
}
interface TaskRow {
  id: number;
  revision: number;
  subject: string;
  status: string;
  owner: string | null;
  dependencies: number[];
  ready: boolean;
  overlaps: { taskId: number; scope: string; otherScope: string }[];
  overlapsOmitted: number;
}
interface View {
  teamId: string;
  admission: string;
  maxMembers: number;
  lead: { status?: string; answer?: string };
  members: MemberRow[];
  tasks: TaskRow[];
  failure: { operation: string; caller: string; type: string; message: string; at: string } | null;
}
interface Totals {
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}
interface Usage {
  members: { name: string; role: string; model: string | null; total: Totals; costUsd: number | null }[];
  total: Totals;
  costUsd: number | null;
  unpriced: string[];
}
interface Frame {
  view: View | null;
  usage: Usage | null;
  closed: boolean;
  unreachable: string | null;
}
interface TeamSummary {
  teamId: string;
  status: string;
  startTime: string | null;
}

const token = new URLSearchParams(location.search).get('token');
const withToken = (path: string): string => (token ? `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : path);

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, attributes: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function byTestId(id: string): HTMLElement {
  const node = document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  if (!node) throw new Error(`the page has no ${id}`);
  return node;
}

function fillTable(id: string, rows: HTMLTableRowElement[]): void {
  byTestId(id)
    .querySelector('tbody')!
    .replaceChildren(...rows);
}

function row(cells: (string | Node)[], attributes: Record<string, string>): HTMLTableRowElement {
  const tr = element('tr', undefined, attributes);
  for (const cell of cells) {
    const td = element('td');
    if (typeof cell === 'string') td.textContent = cell;
    else td.append(cell);
    tr.append(td);
  }
  return tr;
}

function renderFrame(frame: Frame): void {
  byTestId('connection').textContent = frame.unreachable ?? (frame.closed ? 'the Team has finished' : 'live');
  byTestId('connection').dataset.state = frame.unreachable ? 'unreachable' : frame.closed ? 'closed' : 'live';
  const view = frame.view;
  if (!view) return;
  byTestId('admission').textContent = view.admission;
  byTestId('lead-status').textContent = view.lead.status ?? '(no Lead agent: a client drives this Team)';
  byTestId('lead-answer').textContent = view.lead.answer ?? '';
  fillTable(
    'roster',
    view.members.map((m) =>
      row([m.name, m.context, m.phase + (m.failure ? `: ${m.failure}` : ''), m.live ?? '', m.model ?? 'default'], {
        'data-name': m.name,
        'data-phase': m.phase,
      }),
    ),
  );
  fillTable(
    'board',
    view.tasks.map((t) => {
      const overlaps = t.overlaps.map((o) => `${o.scope} ~ #${o.taskId} ${o.otherScope}`);
      if (t.overlapsOmitted > 0) overlaps.push(`+${t.overlapsOmitted} more`);
      return row(
        [
          `#${t.id}`,
          t.subject,
          t.status,
          t.owner ?? '',
          t.ready ? 'ready' : '',
          t.dependencies.map((d) => `#${d}`).join(' '),
          overlaps.join('; '),
          String(t.revision),
        ],
        { 'data-task': String(t.id), 'data-status': t.status },
      );
    }),
  );
  if (frame.usage) renderUsage(frame.usage);
  const failure = byTestId('failure');
  failure.hidden = view.failure === null;
  if (view.failure) {
    const f = view.failure;
    failure.replaceChildren(
      element('strong', `${f.type}`, { 'data-testid': 'failure-type' }),
      element('span', ` ${f.caller} · ${f.operation} · ${f.at}: `),
      element('span', f.message, { 'data-testid': 'failure-message' }),
    );
  }
}

/** US dollars to the hundredth of a cent; empty without a price. */
const dollars = (usd: number | null): string => (usd === null ? '' : `$${usd.toFixed(4)}`);
const figures = (t: Totals): string[] => [t.calls, t.inputTokens, t.cacheReadTokens, t.cacheWriteTokens, t.outputTokens, t.reasoningTokens].map(String);

function renderUsage(usage: Usage): void {
  const unpriced = usage.unpriced.length > 0 ? ` (no price for: ${usage.unpriced.join(', ')})` : '';
  fillTable('usage', [
    ...usage.members.map((m) => row([m.name, m.role, m.model ?? 'default', ...figures(m.total), dollars(m.costUsd)], { 'data-name': m.name })),
    row(['Team', '', '', ...figures(usage.total), `${dollars(usage.costUsd)}${unpriced}`], { 'data-total': 'true' }),
  ]);
}

function teamPage(teamId: string): void {
  const events = new EventSource(withToken(`/teams/${encodeURIComponent(teamId)}/events`));
  events.onmessage = (message: MessageEvent<string>) => renderFrame(JSON.parse(message.data) as Frame);
  events.onerror = () => {
    byTestId('connection').textContent = 'reconnecting to the panel…';
    byTestId('connection').dataset.state = 'reconnecting';
  };
}

async function listPage(): Promise<void> {
  const response = await fetch(withToken('/api/teams'));
  const body = (await response.json()) as { teams?: TeamSummary[]; error?: string };
  const list = byTestId('teams');
  if (body.error) {
    list.replaceChildren(element('li', body.error));
    return;
  }
  const teams = body.teams ?? [];
  if (teams.length === 0) list.replaceChildren(element('li', 'no Teams yet: start one with `npm run cli -- start <teamId>`'));
  else
    list.replaceChildren(
      ...teams.map((t) => {
        const li = element('li');
        li.append(element('a', t.teamId, { href: withToken(`/teams/${encodeURIComponent(t.teamId)}`) }), element('span', ` ${t.status} ${t.startTime ?? ''}`));
        return li;
      }),
    );
}

const match = /^\/teams\/([^/]+)$/.exec(location.pathname);
if (match) teamPage(decodeURIComponent(match[1]!));
else void listPage();
