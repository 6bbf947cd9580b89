/** Plain-text tables for the CLI. */
import type { LiveStatus } from '../shared/definitions';
import type { TaskView, TeamView } from '../shared/team';
import type { TeamEdge } from '../shared/teamEdges';

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

export function formatRoster(view: TeamView, live: Record<string, LiveStatus>): string {
  const rows = [['NAME', 'ROLE', 'PHASE', 'LIVE', 'WORKFLOW ID']];
  rows.push([view.lead.name, 'lead', view.lead.phase, '', view.teamId]);
  for (const m of view.members) rows.push([m.name, 'teammate', m.phase, live[m.name] ?? '', m.workflowId]);
  return table(rows);
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
  return `#${edge.seq} ${edge.at} ${edge.kind} ${edge.subject}`;
}
