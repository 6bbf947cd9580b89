/**
 * A DNS-rebinding attacker against a real panel server on 127.0.0.1 (ephemeral port), over HTTP:
 * requests under a Host the panel does not own get 421 on every route, and its own names get 200.
 * Only routes that never read Temporal answer 200 here, so the panel's client is a real one whose
 * connection is lazy and never opened: no Temporal server is needed. The CLI's refusals of a bind
 * name and of a bad --allowed-host come before it connects, so they run here too.
 */
import { execFile } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { PANEL_BIND_ADDRESS_INVALID, startPanel, type Panel } from '../../cli/panel/server';

const ROOT = path.resolve(__dirname, '../..');
let connection: Connection;
let client: Client;
let panel: Panel;
let port: number;

beforeAll(async () => {
  connection = Connection.lazy({ address: '127.0.0.1:1' }); // never dialled: no route below reads Temporal
  client = new Client({ connection });
  panel = await startPanel({ client, port: 0, allowedHosts: ['panel.example.test'] });
  port = Number(new URL(panel.url).port);
});
afterAll(async () => {
  await panel?.close();
  await connection?.close();
});

interface Reply {
  status: number;
  body: string;
}

/** GET `target` with exactly this Host header (none when `host` is null). */
function get(target: string, host: string | null, headers: http.OutgoingHttpHeaders = {}, listening = port): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port: listening,
      path: target,
      setHost: false,
      headers: host === null ? headers : { ...headers, Host: host },
    });
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const ROUTES = ['/', '/api/teams', '/teams/some-team', '/teams/some-team/events', '/panel.js', '/panel.css'];

describe('the panel refuses a Host it does not own', () => {
  const refused: Array<[string, () => string | null]> = [
    ['a rebinding name', () => 'attacker.example'],
    ['a rebinding name with the port', () => `attacker.example:${port}`],
    ['a name that looks like 127/8', () => `127.attacker.example:${port}`],
    ['localhost on a wrong port', () => `localhost:${port + 1}`],
    ['no Host at all', () => null],
  ];

  test.each(refused)('%s gets 421 on every route, naming --allowed-host', async (_what, host) => {
    for (const route of ROUTES) {
      const reply = await get(route, host());
      expect({ route, status: reply.status }).toEqual({ route, status: 421 });
      expect(reply.body).toMatch(/--allowed-host/);
      expect(reply.body).not.toMatch(/Team|<html/); // no page, no data
    }
  });

  test('a token does not admit a foreign Host', async () => {
    const guarded = await startPanel({ client, port: 0, token: 's3cret' });
    try {
      const listening = Number(new URL(guarded.url).port);
      expect((await get('/?token=s3cret', 'attacker.example', {}, listening)).status).toBe(421);
      expect((await get('/', `127.0.0.1:${listening}`, { Authorization: 'Bearer s3cret' }, listening)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('the panel answers its own names', () => {
  const admitted: Array<[string, () => string]> = [
    ['its bound address and port', () => `127.0.0.1:${port}`],
    ['localhost and its port', () => `localhost:${port}`],
    ['an --allowed-host name', () => 'panel.example.test'],
    ['an --allowed-host name in capitals with a trailing dot and the port', () => `PANEL.example.test.:${port}`],
  ];

  test.each(admitted)('%s gets 200', async (_what, host) => {
    for (const route of ['/', '/teams/some-team', '/panel.js', '/panel.css']) {
      expect({ route, status: (await get(route, host())).status }).toEqual({ route, status: 200 });
    }
  });

  test("a team id with $` $& $' shows literally on its page", async () => {
    const teamId = "t$`x$&y$'z";
    const reply = await get(`/teams/${encodeURIComponent(teamId)}`, `127.0.0.1:${port}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('<span data-testid="team-id">t$`x$&#38;y$&#39;z</span>');
    expect(reply.body.match(/<html/g)).toHaveLength(1);
  });
});

describe('the CLI refuses before it connects', () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['-r', 'ts-node/register/transpile-only', 'cli/index.ts', '--address', '127.0.0.1:1', 'panel', ...args], {
      cwd: ROOT,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
    );

  test('a bind name that looks like loopback, with a typed error', async () => {
    const { code, stderr } = await cli('--host', '127.attacker.example', '--port', '0');
    expect(code).toBe(1);
    expect(stderr).toContain(`error (${PANEL_BIND_ADDRESS_INVALID}): --host 127.attacker.example is not an IP address or localhost`);
    expect(stderr).toContain('--allowed-host');
  }, 60_000);

  test('an --allowed-host with a port', async () => {
    const { code, stderr } = await cli('--allowed-host', 'panel.example.test:8443');
    expect(code).toBe(1);
    expect(stderr).toMatch(/--allowed-host.*panel\.example\.test:8443.*without a port/s);
  }, 60_000);
});
