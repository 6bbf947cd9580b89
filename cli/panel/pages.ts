/**
 * The panel's two HTML shells and its stylesheet. They carry no data: the browser script fills
 * them (as text) from the SSE stream or the Team list. The only outside data here, the team id
 * (title and heading) and the Web UI link, is HTML-escaped.
 */

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1b1f24; }
h1 { font-size: 1.3rem; margin: 0 0 .5rem; } h2 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #d8dee4; }
th { background: #f6f8fa; font-weight: 600; } .meta { color: #57606a; }
[data-testid="connection"][data-state="live"] { color: #1a7f37; } [data-testid="connection"][data-state="unreachable"] { color: #cf222e; }
[data-testid="failure"] { margin: .75rem 0; padding: .5rem .75rem; border-left: 4px solid #cf222e; background: #ffebe9; }
tr[data-phase="failed"] td, tr[data-phase="stopped"] td { color: #57606a; } pre { white-space: pre-wrap; margin: 0; }
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shell(title: string, body: string, scriptSrc: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/panel.css"></head>
<body>${body}<script src="${escapeHtml(scriptSrc)}"></script></body></html>`;
}

export const PANEL_CSS = STYLE;

export function teamPageHtml(teamId: string, webUiLink: string | null): string {
  const webUi = webUiLink ? ` · <a data-testid="web-ui" href="${escapeHtml(webUiLink)}">Temporal Web UI</a>` : '';
  return shell(
    `Team ${teamId}`,
    `<h1>Team <span data-testid="team-id"></span></h1>
<p class="meta"><span data-testid="connection" data-state="connecting">connecting…</span>
 · admission <span data-testid="admission"></span>${webUi} · <a href="/">all Teams</a></p>
<div data-testid="failure" hidden></div>
<h2>Lead</h2>
<p>status <span data-testid="lead-status"></span></p><pre data-testid="lead-answer"></pre>
<h2>Roster</h2>
<table data-testid="roster"><thead><tr><th>name</th><th>context</th><th>phase</th><th>live</th><th>model</th></tr></thead><tbody></tbody></table>
<h2>Usage</h2>
<table data-testid="usage"><thead><tr>
<th>name</th><th>role</th><th>model</th><th>calls</th><th>input</th><th>cache read</th><th>cache write</th><th>output</th><th>reasoning</th><th>cost</th>
</tr></thead><tbody></tbody></table>
<h2>Board</h2>
<table data-testid="board"><thead><tr>
<th>id</th><th>subject</th><th>status</th><th>owner</th><th>readiness</th><th>depends on</th><th>overlaps</th><th>rev</th>
</tr></thead><tbody></tbody></table>`,
    '/panel.js',
    // A replacer function: a string replacement would expand $` $& $' in the id into page text.
  ).replace('<span data-testid="team-id"></span>', () => `<span data-testid="team-id">${escapeHtml(teamId)}</span>`);
}

export function listPageHtml(): string {
  return shell('Agent Teams', `<h1>Agent Teams</h1><p class="meta">recent Teams (search attribute AgentTeamId)</p><ul data-testid="teams"></ul>`, '/panel.js');
}
