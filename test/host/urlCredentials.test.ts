/**
 * URL credentials in MODEL_BASE_URL (issue 21) against a REAL local HTTP server (node:http on
 * 127.0.0.1, port 0) that answers 500: the model-call activity's failure, converted as Temporal
 * records it in history, holds no userinfo (message, stack, causes), the userinfo still reaches the
 * server, as Basic auth, and a server echoing the URL back or a port with nothing listening does
 * not leak it either. The note on a real Team: test/integration/urlCredentials.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createModelActivities, MODEL_FAILURE_TYPES } from '../../activities/modelCall';
import { configFromEnv, createOpenAICompatibleProvider } from '../../activities/providers/openaiCompatible';
import type { CallModelInput } from '../../shared/contract';

let server: http.Server;
let port: number;
const authorizations: (string | undefined)[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/json' });
      // A server that echoes what it was asked, the URL with its credentials included.
      res.end(JSON.stringify({ error: { message: `upstream failed for http://user:secret@127.0.0.1:${port}${req.url ?? ''}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  authorizations.length = 0;
});

const input: CallModelInput = { model: 'm', toolset: 'member', messages: [{ role: 'user', content: 'hi' }] };

/** Runs the model-call activity once and returns the failure as history records it (JSON of the proto). */
async function recordedFailure(baseUrl: string, apiKey?: string): Promise<{ failure: ApplicationFailure; recorded: string }> {
  const provider = createOpenAICompatibleProvider(configFromEnv({ MODEL_BASE_URL: baseUrl, ...(apiKey ? { MODEL_API_KEY: apiKey } : {}) }));
  const activities = createModelActivities({ provider, toolsFor: () => [] });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  try {
    await env.run(activities.callModel, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApplicationFailure);
    const recorded = JSON.stringify(new DefaultFailureConverter().errorToFailure(error, defaultPayloadConverter));
    return { failure: error as ApplicationFailure, recorded };
  }
  throw new Error('expected the model call to fail');
}

test('MODEL_BASE_URL=http://user:secret@127.0.0.1:<port>/v1 answering 500: a ModelServerError without the credentials; they reach the server as Basic auth', async () => {
  const { failure, recorded } = await recordedFailure(`http://user:secret@127.0.0.1:${port}/v1`);
  expect(failure.type).toBe(MODEL_FAILURE_TYPES.server_error);
  expect(failure.message).toContain(`POST http://127.0.0.1:${port}/v1/chat/completions`);
  expect(failure.message).toContain(`upstream failed for http://***@127.0.0.1:${port}/v1/chat/completions`);
  expect(failure.message).toMatch(/returned 500/);
  expect(recorded).not.toContain('secret');
  expect(recorded).not.toContain('user:');
  expect(authorizations).toEqual([`Basic ${Buffer.from('user:secret').toString('base64')}`]);
});

test('with MODEL_API_KEY set too, the key is sent (Bearer) and the URL credentials are still never shown', async () => {
  const { recorded } = await recordedFailure(`http://user:secret@127.0.0.1:${port}/v1?api_key=sk-query`, 'sk-env');
  expect(recorded).not.toContain('secret');
  expect(recorded).not.toContain('sk-query');
  expect(recorded).not.toContain('sk-env');
  expect(recorded).toContain('api_key=***');
  expect(authorizations).toEqual(['Bearer sk-env']);
});

test('a port with nothing listening: the "could not reach" failure names the host, not the credentials', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const { failure, recorded } = await recordedFailure(`http://user:secret@127.0.0.1:${deadPort}/v1`);
  expect(failure.message).toContain(`could not reach the model server at http://127.0.0.1:${deadPort}/v1/chat/completions`);
  expect(recorded).not.toContain('secret');
});
