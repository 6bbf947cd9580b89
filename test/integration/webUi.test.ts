/**
 * The Temporal Web UI as a Team dashboard, on the real dev server: every start carries a static
 * summary and details, the Lead and its members keep current details, every activity carries a
 * summary, and the search attributes list a whole Team or find one member. The dev server's own
 * Web UI (started by globalSetup) is opened in Debian's headless Chromium (playwright-core, no
 * browser download) filtered by AgentTeamId; screenshots go to test-artifacts/webui/
 * (UPDATE_DOC_SCREENSHOTS=1 also copies the list and the Lead's page to docs/images/).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { chromium, type Browser, type Page } from 'playwright-core';
import { answer, script, scriptText, send, tool } from '../../activities/providers/scriptedModelScript';
import { TeamClient } from '../../client/teamClient';
import * as defs from '../../shared/contract';
import { teammateWorkflowId } from '../../shared/team';
import { useClientAndWorker } from '../support/harness';
import { eventually, teammateState } from '../support/teams';
import { uniqueId } from '../support/temporal';

const env = useClientAndWorker();
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'webui');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The list's columns: who each workflow is, by the Team's search attributes. */
const WORKFLOW_TABLE_COLUMNS = JSON.stringify({
  default: ['Status', 'Workflow ID', 'AgentTeamMember', 'AgentTeamRole', 'AgentTeamPhase', 'AgentTeamStatus'].map((label) => ({ label })),
});

interface BrowserGlobals {
  localStorage: { setItem(key: string, value: string): void };
}

/** The list and the Lead's page are the README's pictures (docs/images/, with UPDATE_DOC_SCREENSHOTS=1). */
const DOC_SCREENSHOTS = new Set(['webui-team', 'webui-lead']);

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  if (process.env.UPDATE_DOC_SCREENSHOTS === '1' && DOC_SCREENSHOTS.has(name))
    fs.copyFileSync(file, path.join(__dirname, '..', '..', 'docs', 'images', `${name}.png`));
}

/** The page's text with that of its frames (the Web UI renders markdown in frames). */
async function framesText(page: Page): Promise<string> {
  const texts = await Promise.all(
    page.frames().map((frame) =>
      frame
        .locator('body')
        .innerText()
        .catch(() => ''),
    ),
  );
  return texts.join('\n');
}

interface WorkflowMetadata {
  currentDetails: string;
}

async function currentDetails(handle: WorkflowHandle): Promise<string> {
  return (await handle.query<WorkflowMetadata>('__temporal_workflow_metadata')).currentDetails;
}

async function activitySummaries(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    // User metadata sits on the history event itself, beside activityTaskScheduledEventAttributes.
    const summary = e.activityTaskScheduledEventAttributes ? e.userMetadata?.summary : undefined;
    return summary ? [defaultPayloadConverter.fromPayload<string>(summary)] : [];
  });
}

async function listed(client: Client, query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const workflow of client.workflow.list({ query })) ids.push(workflow.workflowId);
  return ids.sort();
}

/** A Lead agent (Team profile, scripted model) that spawns parser-dev, which runs `ls -la src` and reports back. */
async function teamWithATeammate(): Promise<TeamClient> {
  const teamId = uniqueId('webui-team');
  const parserScript = script(tool('bash', { command: 'ls -la src' }), send('lead', 'tests ran'), answer('done'));
  const team = await TeamClient.start(env.client, {
    teamId,
    taskQueue: env.worker.taskQueue,
    agent: {
      profile: 'team',
      model: 'scripted',
      prompt: scriptText(
        tool('create_task', { subject: 'parse the grammar' }),
        tool('spawn_teammate', { name: 'parser-dev', message: parserScript }),
        answer('parser-dev is on it'),
      ),
    },
  });
  await eventually(
    () => team.handle().query(defs.getAgentStateQuery),
    (view) => view.status === 'answered',
    120_000,
  );
  await eventually(
    () => teammateState(team, 'parser-dev'),
    (state) => state.turns === 1 && state.status === 'idle',
    120_000,
  );
  return team;
}

describe('the Temporal Web UI as a Team dashboard', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  test('starts carry summaries, workflows keep current details, activities carry summaries, and AgentTeamId lists the whole Team', async () => {
    const team = await teamWithATeammate();
    const teamId = team.teamId;
    const lead = env.client.workflow.getHandle(teamId);
    const mate = env.client.workflow.getHandle(teammateWorkflowId(teamId, 'parser-dev'));

    // Static summary and details: the Team, the member, its role, context and model.
    const leadDescription = await lead.describe();
    expect(await leadDescription.staticSummary()).toBe(`lead · lead of Team ${teamId} · agent, team profile · model scripted`);
    expect(await leadDescription.staticDetails()).toContain(`- **Team**: ${teamId}`);
    const mateDescription = await mate.describe();
    expect(await mateDescription.staticSummary()).toBe(`parser-dev · teammate of Team ${teamId} · fresh · model scripted`);
    expect(await mateDescription.staticDetails()).toContain('- **Role**: teammate');

    // Current details: the Lead's roster and board summary, the member's status.
    // (The Lead took more turns than its prompt's: parser-dev's message and the open task start more.)
    // The Team's usage follows once a model call was recorded (the scripted model reports an estimate).
    expect(await currentDetails(lead)).toMatch(
      new RegExp(
        '^1 member active · tasks: 1 pending · admission open\\n\\nlead: answered · \\d+ turns so far' +
          '\\n\\nusage: \\d+ model calls · \\d+ tokens in \\(0 from cache\\), \\d+ out$',
      ),
    );
    expect(await currentDetails(mate)).toBe('idle · 1 turn so far');

    // Rendered when read, from the state as it is then: a task created a moment ago shows at once,
    // with no event or activation in between to refresh them.
    await team.createTask({ subject: 'write the tests' });
    expect(await currentDetails(lead)).toMatch(/^1 member active · tasks: 2 pending · admission open\n/);

    // Activity summaries: model calls by member, turn and step; tools by member and a short command prefix.
    const mateSummaries = await activitySummaries(mate);
    expect(mateSummaries).toEqual(
      expect.arrayContaining([
        'parser-dev · reportMemberStatus running turn 1',
        'parser-dev · callModel turn 1 step 1',
        'parser-dev · bash: ls -la src',
        'parser-dev · callModel turn 1 step 2',
        'parser-dev · reportMemberStatus idle turn 1',
      ]),
    );
    expect(await activitySummaries(lead)).toEqual(expect.arrayContaining(['lead · callModel turn 1 step 1']));

    // Search attributes: AgentTeamId lists the Lead and its teammates; AgentTeamMember finds one member.
    const whole = await eventually(
      () => listed(env.client, `AgentTeamId = "${teamId}"`),
      (ids) => ids.length === 2,
    );
    expect(whole).toEqual([teamId, teammateWorkflowId(teamId, 'parser-dev')].sort());
    expect(await listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamMember = "parser-dev"`)).toEqual([teammateWorkflowId(teamId, 'parser-dev')]);
    expect(await listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamRole = "lead"`)).toEqual([teamId]);
    // Phase and status stay current where they change: each workflow upserts its own.
    const mateId = teammateWorkflowId(teamId, 'parser-dev');
    expect(
      await eventually(
        () => listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamPhase = "active"`),
        (ids) => ids.length === 2,
      ),
    ).toEqual([teamId, mateId].sort());
    expect(
      await eventually(
        () => listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamStatus = "idle"`),
        (ids) => ids.length === 1,
      ),
    ).toEqual([mateId]);
    expect(await listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamStatus = "answered"`)).toEqual([teamId]);
    expect(await listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamStatus = "running"`)).toEqual([]);

    // The dev server's Web UI, filtered by AgentTeamId, lists the Lead and its teammate; each one's page shows its summary and details.
    const uiUrl = process.env.AGENT_TEAMS_TEST_UI_URL;
    if (!uiUrl) throw new Error('globalSetup started the dev server without its Web UI (AGENT_TEAMS_TEST_UI_URL unset)');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1600, height: 560 } });
    // The Web UI 2.42 list has no Summary column; the Team's own search attributes are columns a user adds (kept in localStorage).
    await page.addInitScript(
      (columns) => (globalThis as unknown as BrowserGlobals).localStorage.setItem('namespace-workflow-table-columns', columns),
      WORKFLOW_TABLE_COLUMNS,
    );
    await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(`AgentTeamId = "${teamId}"`)}`);
    const rows = page.locator('table tbody tr');
    try {
      await rows
        .filter({ hasText: teammateWorkflowId(teamId, 'parser-dev') })
        .filter({ hasText: 'teammate' })
        .filter({ hasText: 'idle' })
        .waitFor({ timeout: 60_000 });
      await rows.filter({ hasText: 'answered' }).filter({ hasText: 'lead' }).waitFor({ timeout: 60_000 });
      expect(await rows.count()).toBe(2);
    } finally {
      await shot(page, 'webui-team');
    }

    await page.setViewportSize({ width: 1400, height: 900 });
    for (const [workflowId, summary, current] of [
      [teamId, `lead · lead of Team ${teamId}`, '1 member active · tasks: 2 pending · admission open'],
      [teammateWorkflowId(teamId, 'parser-dev'), `parser-dev · teammate of Team ${teamId}`, 'idle · 1 turn so far'],
    ] as const) {
      await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
      await page
        .getByRole('link', { name: 'User Metadata' })
        .or(page.getByRole('tab', { name: 'User Metadata' }))
        .first()
        .click();
      // Summary, details and current details are markdown, rendered in sandboxed frames.
      await eventually(
        () => framesText(page),
        (text) => text.includes(summary) && text.includes(current),
        60_000,
      );
      await shot(page, workflowId === teamId ? 'webui-lead' : 'webui-member');
    }

    await team.dispose();
    expect(await activitySummaries(lead)).toContain(`lead · stopTeammate ${teammateWorkflowId(teamId, 'parser-dev')}`);
    // Disposal stops every member and then the Lead: both say so, and the teammate exited.
    expect(
      await eventually(
        () => listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamPhase = "stopped"`),
        (ids) => ids.length === 2,
      ),
    ).toEqual([teamId, teammateWorkflowId(teamId, 'parser-dev')].sort());
    expect(await listed(env.client, `AgentTeamId = "${teamId}" AND AgentTeamStatus = "exited"`)).toEqual([teammateWorkflowId(teamId, 'parser-dev')]);
  });
});
