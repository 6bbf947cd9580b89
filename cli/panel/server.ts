/**
 * The live web panel (`npm run cli -- panel`): a small HTTP server.
 *  - `/` lists recent Teams (their Leads, found by the AgentTeamId/AgentTeamRole search attributes);
 *  - `/teams/<teamId>` shows the roster, the board, the Lead and the last refused operation;
 *  - `/teams/<teamId>/events` is the Server-Sent Events stream of that Team's complete views.
 * One TeamViewCarrier per Team viewed, shared by all its browsers, started with the first and
 * stopped after the last leaves. It binds to loopback unless told otherwise; on any other address
 * every request must carry the token (`?token=` or `Authorization: Bearer`).
 */
import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { TeamViewCarrier, type CarriedFrame } from '../../client/teamViewCarrier';
import { errorMessage } from '../../shared/errors';
import { MAX_ID_LENGTH } from '../../shared/limits';
import { panelScript } from './browserScript';
import { PANEL_CSS, listPageHtml, teamPageHtml } from './pages';

export interface PanelOptions {
  client: Client;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required when `host` is not a loopback address. */
  token?: string;
  /** The Temporal Web UI link of a Team's Lead, when one is configured. */
  webUiLink?: (teamId: string) => string | null;
  /** How long each of a carrier's waits lasts (ms); an idle viewed Team costs one read per wait. */
  waitSliceMs?: number;
  /** SSE comment lines keep idle connections open through proxies (ms). */
  heartbeatMs?: number;
}

export interface Panel {
  url: string;
  server: http.Server;
  carriers: ReadonlyMap<string, TeamViewCarrier>;
  close(): Promise<void>;
}

export const PANEL_TOKEN_REQUIRED = 'PanelTokenRequired';
const DEFAULT_WAIT_SLICE_MS = 5 * 60 * 1000;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}

export async function startPanel(options: PanelOptions): Promise<Panel> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && !options.token) {
    throw Object.assign(
      new Error(`the panel binds to ${host}, which is not loopback: pass --token <secret> (or PANEL_TOKEN) so only people with it can read Teams`),
      { type: PANEL_TOKEN_REQUIRED },
    );
  }
  const carriers = new Map<string, TeamViewCarrier>();
  const carrierFor = (teamId: string): TeamViewCarrier => {
    let carrier = carriers.get(teamId);
    if (!carrier) {
      carrier = new TeamViewCarrier(TeamClient.attach(options.client, teamId), { waitSliceMs: options.waitSliceMs ?? DEFAULT_WAIT_SLICE_MS });
      carriers.set(teamId, carrier);
    }
    return carrier;
  };
  const sockets = new Set<http.ServerResponse>();

  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'text/plain', `panel error: ${errorMessage(error)}`);
      else response.end();
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://panel');
    // The script and stylesheet carry no Team data; the page loads them by plain URL.
    const asset = url.pathname === '/panel.js' || url.pathname === '/panel.css';
    if (options.token && !asset && !authorized(request, url, options.token)) {
      send(response, 401, 'text/plain', 'this panel needs its token: open the URL it printed (…?token=…) or send Authorization: Bearer <token>');
      return;
    }
    if (request.method !== 'GET') {
      send(response, 405, 'text/plain', 'the panel is read-only: GET only');
      return;
    }
    const path = url.pathname;
    if (path === '/') return send(response, 200, 'text/html', listPageHtml());
    if (path === '/panel.js') return send(response, 200, 'text/javascript', panelScript());
    if (path === '/panel.css') return send(response, 200, 'text/css', PANEL_CSS);
    if (path === '/api/teams') return send(response, 200, 'application/json', JSON.stringify(await recentTeams(options.client)));
    const team = /^\/teams\/([^/]+)(\/events)?$/.exec(path);
    const teamId = team ? safeDecode(team[1]!) : null;
    if (!team || teamId === null || teamId.length === 0 || teamId.length > MAX_ID_LENGTH) {
      send(response, 404, 'text/plain', 'no such page: open / for the list of Teams, or /teams/<teamId>');
      return;
    }
    if (!team[2]) return send(response, 200, 'text/html', teamPageHtml(teamId, options.webUiLink?.(teamId) ?? null));
    streamViews(request, response, carrierFor(teamId));
  }

  function streamViews(request: http.IncomingMessage, response: http.ServerResponse, carrier: TeamViewCarrier): void {
    response.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    response.write('retry: 2000\n\n');
    sockets.add(response);
    const unsubscribe = carrier.subscribe((frame: CarriedFrame) => response.write(`data: ${JSON.stringify(frame)}\n\n`));
    const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), options.heartbeatMs ?? 25_000);
    request.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      sockets.delete(response);
      if (carrier.subscribers === 0 && carriers.get(carrier.teamId) === carrier) {
        carriers.delete(carrier.teamId);
        void carrier.stop();
      }
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}/${options.token ? `?token=${encodeURIComponent(options.token)}` : ''}`;
  return {
    url,
    server,
    carriers,
    async close() {
      for (const socket of sockets) socket.end();
      const stopping = [...carriers.values()].map((carrier) => carrier.stop());
      carriers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      // A carrier's wait ends with its slice; the panel does not hold the process for it.
      void Promise.allSettled(stopping);
    },
  };
}

const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function send(response: http.ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store' });
  response.end(body);
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function authorized(request: http.IncomingMessage, url: URL, token: string): boolean {
  const header = request.headers.authorization;
  const given = url.searchParams.get('token') ?? (header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : null);
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

interface TeamSummary {
  teamId: string;
  status: string;
  startTime: string | null;
}

/** Up to 50 Leads, newest first (the server's default order) (one row per Team: continue-as-new runs share the id). */
async function recentTeams(client: Client): Promise<{ teams: TeamSummary[] } | { error: string }> {
  try {
    const seen = new Map<string, TeamSummary>();
    for await (const workflow of client.workflow.list({ query: `AgentTeamRole = 'lead'` })) {
      if (!seen.has(workflow.workflowId)) {
        seen.set(workflow.workflowId, { teamId: workflow.workflowId, status: workflow.status.name, startTime: workflow.startTime?.toISOString() ?? null });
      }
      if (seen.size >= 50) break;
    }
    return { teams: [...seen.values()] };
  } catch (error) {
    return { error: `cannot list Teams: ${errorMessage(error)} (is the AgentTeamRole search attribute registered? see docs/deployment.md)` };
  }
}
