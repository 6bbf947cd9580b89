/**
 * The seed's web projection on the real server: the carrier that reads a Team's agentTeam view
 * once per edge and sends each changed complete view, and the panel served by `cli panel`, driven
 * in Debian's headless Chromium (playwright-core, no browser download). Screenshots go to
 * test-artifacts/panel/ (UPDATE_DOC_SCREENSHOTS=1 also copies them to docs/images/).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TeamViewCarrier, type CarriedFrame } from '../../client/teamViewCarrier';
import { startPanel, type Panel } from '../../cli/panel/server';
import { useClientAndWorker } from '../support/harness';
import { address, uniqueId } from '../support/temporal';
import { eventually, newTeam, rejectionOf, teammateState } from '../support/teams';
import { recordedModelUsage } from '../support/recordedUsage';
import { teammateWorkflowId } from '../../shared/team';
import { TeamClient } from '../../client/teamClient';
import { costUsd } from '../../shared/agent/usage';

const PRICE = { input: 3, output: 15 };
const HOSTILE_MODEL = '<img src=x onerror="globalThis.pwned=1">';

const env = useClientAndWorker();
const ARTIFACTS = path.join(__dirname, '..', '..', 'test-artifacts', 'panel');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function framesOf(carrier: TeamViewCarrier): CarriedFrame[] {
  const frames: CarriedFrame[] = [];
  carrier.subscribe((frame) => frames.push(frame));
  return frames;
}

/** The first frame at or after `from` that `accept`s, once it has arrived. */
async function frameWhere(frames: CarriedFrame[], accept: (frame: CarriedFrame) => boolean, from = 0): Promise<CarriedFrame> {
  return eventually(
    () => Promise.resolve(frames.slice(from).find(accept)),
    (frame) => frame !== undefined,
    30_000,
  ) as Promise<CarriedFrame>;
}

describe('the carrier', () => {
  test('sends the current view first, then one complete view per view-changing edge, and nothing for mailbox-only traffic', async () => {
    const team = await newTeam(env.client, env.worker.taskQueue);
    const carrier = new TeamViewCarrier(team);
    const frames = framesOf(carrier);
    const reporting = team.reportingRejections();
    try {
      await frameWhere(frames, (f) => f.view !== null);
      expect(frames).toHaveLength(1);
      expect(frames[0]!.view).toMatchObject({ teamId: team.teamId, admission: 'open', members: [], tasks: [], failure: null, lead: { name: 'lead' } });

      // Three board changes, one at a time: one read and one frame each.
      for (const subject of ['parse', 'lex', 'emit']) {
        const before = frames.length;
        await team.createTask({ subject });
        await frameWhere(frames, (f) => f.view?.tasks.some((t) => t.subject === subject) ?? false, before);
      }
      expect(frames).toHaveLength(4);
      expect(carrier.stats).toMatchObject({ edges: 3, reads: 4, published: 4, delivered: 4 });

      // Mailbox-only traffic (sends into the Lead's own inbox) wakes nothing and sends nothing.
      for (let i = 0; i < 5; i++) await team.as('lead').sendMessage('lead', { note: i });
      await team.readLeadInbox();
      const late: CarriedFrame[] = [];
      carrier.subscribe((frame) => late.push(frame));
      expect(late).toHaveLength(1); // a late subscriber gets the current view at once
      await team.createTask({ subject: 'after the mail' });
      await frameWhere(frames, (f) => f.view?.tasks.some((t) => t.subject === 'after the mail') ?? false);
      expect(frames).toHaveLength(5);
      expect(late).toHaveLength(2);
      expect(carrier.stats).toMatchObject({ edges: 4, reads: 5, published: 5 });

      // A refused stale claim is a frame of its own: the failure beside the unchanged board.
      const task = (await team.view()).tasks[0]!;
      const stale = await rejectionOf(reporting.claimTask({ taskId: task.id, expectedRevision: task.revision + 5 }));
      expect(stale.type).toBe('TaskRevisionConflict');
      const failed = await frameWhere(frames, (f) => f.view?.failure !== null && f.view?.failure !== undefined);
      expect(failed.view!.failure).toMatchObject({ operation: 'claimTask', caller: 'lead', type: 'TaskRevisionConflict' });
      expect(failed.view!.tasks).toEqual(frames[4]!.view!.tasks);

      await team.dispose();
      const closed = await frameWhere(frames, (f) => f.closed);
      expect(closed.view!.admission).toBe('closed');
    } finally {
      await carrier.stop();
    }
  });
});

describe('the panel in headless Chromium', () => {
  let browser: Browser;
  let panel: Panel;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    panel = await startPanel({ client: env.client, port: 0, webUiLink: (teamId) => `http://127.0.0.1:1/namespaces/default/workflows/${teamId}` });
  });
  afterAll(async () => {
    await panel?.close();
    await browser?.close();
  });

  async function screenshot(page: Page, name: string): Promise<void> {
    const file = path.join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    // Only the picture the README shows goes to docs/images; the rest stay test artifacts.
    if (name === 'panel-team' && process.env.UPDATE_DOC_SCREENSHOTS === '1')
      fs.copyFileSync(file, path.join(__dirname, '..', '..', 'docs', 'images', `${name}.png`));
  }

  test('a Team driven through spawn, send, claim, completion, a refused stale claim and disposal shows each change live, without reload', async () => {
    const team = await TeamClient.start(env.client, {
      teamId: uniqueId('team'),
      taskQueue: env.worker.taskQueue,
      models: { allowed: ['scripted', HOSTILE_MODEL], default: 'scripted', prices: { scripted: PRICE } },
    });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${panel.url}teams/${encodeURIComponent(team.teamId)}`);
    await page.evaluate(() => ((globalThis as unknown as { loadedOnce: number }).loadedOnce = 1));
    const roster = page.getByTestId('roster');
    const board = page.getByTestId('board');

    await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor();
    await expectText(page.getByTestId('team-id'), team.teamId);
    await expectText(page.getByTestId('admission'), 'open');

    await team.spawnTeammate({ name: 'parser-dev', message: 'parse the grammar', model: 'scripted' });
    await roster.locator('tr[data-name="parser-dev"][data-phase="active"]').waitFor();
    await expectText(roster.locator('tr[data-name="parser-dev"] td').nth(4), 'scripted');

    await team.sendMessage('parser-dev', { hint: '<b>not markup</b>' });
    await team.createTask({ subject: 'write <the> parser', writeScopes: ['src/parser'] });
    await team.createTask({ subject: 'test the parser', dependencies: [1], writeScopes: ['src/parser/tests'] });
    await board.locator('tr[data-task="2"]').waitFor();
    await expectText(board.locator('tr[data-task="1"] td').nth(1), 'write <the> parser'); // text in the DOM, not markup
    await expectText(board.locator('tr[data-task="1"] td').nth(4), 'ready');
    await expectText(board.locator('tr[data-task="2"] td').nth(4), '');
    await expectText(board.locator('tr[data-task="2"] td').nth(6), 'src/parser/tests ~ #1 src/parser');

    const mate = team.as('parser-dev');
    const claimed = await mate.claimTask({ taskId: 1, expectedRevision: 1 });
    await board.locator('tr[data-task="1"][data-status="in_progress"]').waitFor();
    await expectText(board.locator('tr[data-task="1"] td').nth(3), 'parser-dev');
    await mate.transitionTask({ taskId: 1, expectedRevision: claimed.task.revision, status: 'completed' });
    await board.locator('tr[data-task="1"][data-status="completed"]').waitFor();
    await expectText(board.locator('tr[data-task="2"] td').nth(4), 'ready');

    const stale = await rejectionOf(team.reportingRejections().claimTask({ taskId: 2, expectedRevision: 7 }));
    expect(stale.type).toBe('TaskRevisionConflict');
    await page.getByTestId('failure-type').filter({ hasText: 'TaskRevisionConflict' }).waitFor();
    expect(await page.getByTestId('failure').textContent()).toContain('claimTask');
    await expectText(board.locator('tr[data-task="2"] td').nth(2), 'pending'); // the state the refusal left untouched
    // Usage: a row per member with its calls, tokens and cost as its histories recorded them, and the Team's total.
    await eventually(
      () => teammateState(team, 'parser-dev'),
      (s) => s.status === 'idle' && s.consumed === 2,
    );
    const usage = page.getByTestId('usage');
    const recorded = await recordedModelUsage(env.client, teammateWorkflowId(team.teamId, 'parser-dev'));
    await expectText(usage.locator('tr[data-name="parser-dev"] td').nth(3), String(recorded.calls));
    await expectText(usage.locator('tr[data-name="parser-dev"] td').nth(4), String(recorded.inputTokens));
    await expectText(usage.locator('tr[data-name="parser-dev"] td').nth(9), `$${costUsd(recorded, PRICE).toFixed(4)}`);
    await screenshot(page, 'panel-team');

    // A hostile model name is text in the usage table as everywhere else.
    await team.spawnTeammate({ name: 'reviewer', message: 'review it', model: HOSTILE_MODEL });
    await eventually(
      () => teammateState(team, 'reviewer'),
      (s) => s.status === 'idle' && s.consumed === 1,
    );
    await expectText(usage.locator('tr[data-name="reviewer"] td').nth(2), HOSTILE_MODEL);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await usage.locator('img').count()).toBe(0);
    // The Lead counts the reviewer's call from its idle report, which can land after the reviewer's own state says idle.
    const teamUsage = await eventually(
      () => team.usage(),
      (u) => (u.members.find((m) => m.name === 'reviewer')?.total.calls ?? 0) > 0,
    );
    await expectText(usage.locator('tr[data-total="true"] td').nth(3), String(teamUsage.total.calls));

    await team.dispose();
    await page.getByTestId('connection').filter({ hasText: 'the Team has finished' }).waitFor();
    await roster.locator('tr[data-name="parser-dev"][data-phase="stopped"]').waitFor();
    await expectText(page.getByTestId('admission'), 'closed');
    expect(await page.evaluate(() => (globalThis as unknown as { loadedOnce?: number }).loadedOnce)).toBe(1); // never reloaded
    await page.close();
  });

  test('/ lists recent Teams by their search attributes, each linking to its page', async () => {
    const team = await newTeam(env.client, env.worker.taskQueue);
    const page = await browser.newPage();
    await eventually(
      async () => {
        await page.goto(panel.url);
        await page.getByTestId('teams').locator('li').first().waitFor();
        return page.getByTestId('teams').textContent();
      },
      (text) => text?.includes(team.teamId) ?? false,
    );
    await page.getByRole('link', { name: team.teamId }).click();
    await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor();
    await screenshot(page, 'panel-list-then-team');
    await page.close();
    await team.dispose();
  });

  test('the panel refuses a non-loopback bind without a token, and with one answers only requests that carry it', async () => {
    await expect(startPanel({ client: env.client, host: '0.0.0.0', port: 0 })).rejects.toThrow(/--token/);
    const guarded = await startPanel({ client: env.client, port: 0, token: 's3cret' });
    try {
      const base = guarded.url.replace(/\?token=.*$/, '');
      expect((await fetch(base)).status).toBe(401);
      expect((await fetch(`${base}?token=wrong`)).status).toBe(401);
      expect((await fetch(guarded.url)).status).toBe(200);
      expect((await fetch(`${base}api/teams`, { headers: { Authorization: 'Bearer s3cret' } })).status).toBe(200);
      expect((await fetch(`${base}teams/${'x'.repeat(300)}`, { headers: { Authorization: 'Bearer s3cret' } })).status).toBe(404);
      expect((await fetch(`${base}teams/some-team/events`)).status).toBe(401);
      expect((await fetch(`${base}panel.js`)).status).toBe(200); // no Team data in the script or stylesheet
      // The page opened from the printed URL loads its script and lists Teams with the token.
      const page = await browser.newPage();
      await page.goto(guarded.url);
      await page.getByTestId('teams').locator('li').first().waitFor();
      await page.close();
    } finally {
      await guarded.close();
    }
  });
});

describe('`cli panel --allowed-host`', () => {
  // test/host/panelHost.test.ts plays the rebinding attacker on every route; this checks the CLI wiring.
  test('answers /api/teams under the named Host and the loopback one, and a rebinding name with 421', async () => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', address(), 'panel', '--port', '0', '--allowed-host', 'panel.example.test'],
      { cwd: path.join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const printed = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const url = /panel: (http:\/\/\S+)/.exec(out)?.[1];
          if (url) resolve(url);
        });
        child.once('exit', (code) => reject(new Error(`the panel exited (${code}) before printing its URL`)));
      });
      const port = Number(new URL(printed).port);
      const statusFor = (host: string) => hostGet(port, '/api/teams', host);
      expect(await statusFor('panel.example.test')).toBe(200);
      expect(await statusFor(`127.0.0.1:${port}`)).toBe(200);
      expect(await statusFor('attacker.example')).toBe(421);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        await exited;
      }
    }
  });
});

function hostGet(port: number, target: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: target, setHost: false, headers: { Host: host } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
  });
}

async function expectText(locator: import('playwright-core').Locator, text: string): Promise<void> {
  await eventually(
    () => locator.textContent(),
    (value) => (value ?? '') === text,
    15_000,
  );
}
