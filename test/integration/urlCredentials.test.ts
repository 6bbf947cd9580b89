/**
 * URL credentials in MODEL_BASE_URL never reach a Team's history, its "turn failed" note or its
 * lastError (issue 21), on the real Temporal server:
 *  - the OpenAI-compatible provider at http://user:secret@127.0.0.1:<port>/v1, a local server that
 *    answers 500 (and echoes the URL, credentials included): the Lead's turn fails after the retry
 *    policy's attempts, and nothing in the Lead's history, note or view holds the credentials;
 *  - a callModel activity that fails with the credentials in its message (a provider that does not
 *    redact): the note and lastError the workflow writes are redacted on their own.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { createOpenAICompatibleProvider } from '../../activities/providers/openaiCompatible';
import { LEAD_TURN_FAILED, TeamClient } from '../../client/teamClient';
import { connectClient, startWorker, uniqueId, type RunningWorker } from '../support/temporal';
import { rejectionOf } from '../support/teams';

let port: number;
let requests = 0;
const server = http.createServer((req, res) => {
  requests += 1;
  req.resume();
  req.on('end', () => {
    res.writeHead(500, { 'content-type': 'application/json', 'retry-after-ms': '50' });
    res.end(JSON.stringify({ error: { message: `upstream failed for http://user:secret@127.0.0.1:${port}${req.url ?? ''}` } }));
  });
});

let client: Client;
let closeClient: () => Promise<void>;
const workers: RunningWorker[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  ({ client, close: closeClient } = await connectClient());
});
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  await closeClient();
  await new Promise((resolve) => server.close(resolve));
});

function turnFailedNotes(conversation: { role: string; content: unknown }[]): string[] {
  return conversation.flatMap((e) =>
    e.role === 'system' && typeof e.content === 'object' && e.content !== null && (e.content as { event?: string }).event === 'turn failed'
      ? [String((e.content as { error?: unknown }).error)]
      : [],
  );
}

test('a provider at http://user:secret@127.0.0.1 answering 500: no credential in the history, the note or lastError', async () => {
  const provider = createOpenAICompatibleProvider({ baseUrl: `http://user:secret@127.0.0.1:${port}/v1`, model: 'm' });
  const worker = await startWorker(uniqueId('tq-urlcred'), { modelProvider: provider });
  workers.push(worker);
  const team = await TeamClient.start(client, { teamId: uniqueId('urlcred'), taskQueue: worker.taskQueue, agent: { prompt: 'Plan.', profile: 'team' } });
  const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 90_000 }));
  expect(failure.type).toBe(LEAD_TURN_FAILED);
  expect(requests).toBeGreaterThan(0);
  const view = await team.agentState();
  expect(view.status).toBe('failed');
  const notes = turnFailedNotes(view.conversation);
  expect(notes).toHaveLength(1);
  expect(notes[0]).toContain(`127.0.0.1:${port}`);
  expect(notes[0]).toMatch(/returned 500/);
  for (const text of [notes[0], view.lastError, failure.message]) expect(text).not.toContain('secret');
  const history = JSON.stringify(await team.handle().fetchHistory());
  expect(history).toContain('upstream failed for http://***@127.0.0.1');
  expect(history).not.toContain('secret');
  await team.dispose();
});

test('a model call failing with the credentials in its message: the workflow redacts the note and lastError itself', async () => {
  const worker = await startWorker(uniqueId('tq-urlcred-raw'), {
    extraActivities: {
      callModel: () =>
        Promise.reject(
          ApplicationFailure.nonRetryable(`could not reach the model server at http://user:secret@127.0.0.1:${port}/v1/chat/completions`, 'RawProvider'),
        ),
    },
  });
  workers.push(worker);
  const team = await TeamClient.start(client, { teamId: uniqueId('urlcred-raw'), taskQueue: worker.taskQueue, agent: { prompt: 'Plan.', profile: 'team' } });
  const failure = await rejectionOf(team.waitForAnswer({ timeoutMs: 60_000 }));
  expect(failure.type).toBe(LEAD_TURN_FAILED);
  const view = await team.agentState();
  const notes = turnFailedNotes(view.conversation);
  expect(notes).toEqual([`could not reach the model server at http://***@127.0.0.1:${port}/v1/chat/completions`]);
  expect(view.lastError).toContain(`http://***@127.0.0.1:${port}`);
  expect(view.lastError).not.toContain('secret');
  expect(failure.message).not.toContain('secret');
  await team.dispose();
});
