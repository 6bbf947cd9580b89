/**
 * The live web panel (`npm run cli -- panel`): a small HTTP server.
 *  - `/` lists recent Teams (their Leads, found by the AgentTeamId/AgentTeamRole search attributes);
 *  - `/teams/<teamId>` shows the roster, the board, the Lead and the last refused operation;
 *  - `/teams/<teamId>/events` is the Server-Sent Events stream of that Team's complete views.
 * One TeamViewCarrier per Team viewed, shared by all its browsers, started with the first and
 * stopped after the last leaves. It binds to loopback unless told otherwise; on any other address
 * every request must carry the token (`?token=` or `Authorization: Bearer`). Every request's Host
 * must be a loopback name, the bound address or an `allowedHosts` name (else 421): a DNS-rebinding
 * page reaches the panel under its own name, so without this check it could read Teams.
 */
import { timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { TeamClient } from '../../client/teamClient';
import { TeamViewCarrier, type CarriedFrame } from '../../client/teamViewCarrier';
import { OPERATOR } from '../../shared/contract/callers';
import { errorMessage } from '../../shared/util/errors';
import { MAX_ID_LENGTH } from '../../shared/contract/limits';
import { teamIdProblem } from '../../shared/contract/workflowInputs';
import { panelScript } from './browserScript';
import { PANEL_CSS, listPageHtml, teamPageHtml } from './pages';

export interface PanelOptions {
  client: Client;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required when `host` is not a loopback address. */
  token?: string;
  /** Host names (no port) answered besides loopback names and the bound address, e.g. a proxy's. */
  allowedHosts?: readonly string[];
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
export const PANEL_BIND_ADDRESS_INVALID = 'PanelBindAddressInvalid';
export const PANEL_ALLOWED_HOST_INVALID = 'PanelAllowedHostInvalid';
const DEFAULT_WAIT_SLICE_MS = 5 * 60 * 1000;

/**
 * A real loopback address: `localhost`, an IPv4 literal in 127.0.0.0/8 or the IPv6 literal ::1.
 * Only literals count: a name such as 127.attacker.example resolves wherever its owner likes.
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return isIP(name) === 6 && canonicalIp(name) === '::1';
}

/** A bind address must be an IP literal or `localhost`; a name would bind wherever DNS says. */
export function isBindAddress(host: string): boolean {
  return isIP(host) !== 0 || host.toLowerCase() === 'localhost';
}

export interface HostHeader {
  /** Lower case, one trailing dot removed, IPv6 without brackets and in canonical form. */
  name: string;
  port: number | null;
}

/** `name`, `name:port`, `[v6]` or `[v6]:port`; null for anything else (a bare IPv6, a bad port). */
export function parseHostHeader(value: string): HostHeader | null {
  const text = value.toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = bracketed ? null : /^([a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(text);
  const match = bracketed ?? plain;
  if (!match) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && port > 65535) return null;
  if (bracketed) return isIP(match[1]!) === 6 ? { name: canonicalIp(match[1]!), port } : null;
  const name = match[1]!.endsWith('.') ? match[1]!.slice(0, -1) : match[1]!;
  if (name.split('.').includes('') || isIP(name) === 6) return null; // an empty label: not a DNS name
  return { name, port };
}

/**
 * Whether a request's Host header names this panel: a loopback name, the bound address or an
 * allowed name (`names`, as parseHostHeader gives them), with no port or the listening one.
 */
export function hostAllowed(header: string | undefined, port: number, names: ReadonlySet<string>): boolean {
  const host = header === undefined ? null : parseHostHeader(header);
  if (!host || (host.port !== null && host.port !== port)) return false;
  return isLoopback(host.name) || names.has(host.name);
}

/** IPv6 in the one spelling the URL parser gives (0:0::1 and ::0001 are both ::1); IPv4 unchanged. */
function canonicalIp(address: string): string {
  if (isIP(address) !== 6) return address.toLowerCase();
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase(); // a zone id (fe80::1%eth0), which URLs cannot carry
  }
}

/** An `--allowed-host` value as it is compared; refused (typed) when it is not a bare host name. */
export function allowedHostName(value: string): string {
  const host = parseHostHeader(value.startsWith('[') || isIP(value) !== 6 ? value : `[${value}]`);
  if (!host || host.port !== null) {
    throw Object.assign(
      new Error(
        `"${value}" is not a host name: give the name a browser puts in the Host header, without a port ` +
          "(e.g. panel.example.com); the port must be the panel's own",
      ),
      { type: PANEL_ALLOWED_HOST_INVALID },
    );
  }
  return host.name;
}

export async function startPanel(options: PanelOptions): Promise<Panel> {
  const host = options.host ?? '127.0.0.1';
  if (!isBindAddress(host)) {
    throw Object.assign(
      new Error(
        `the panel cannot bind to ${host}: give an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1) or localhost, not a name; ` +
          'to serve the panel under a name, bind its address and pass --allowed-host <name>',
      ),
      { type: PANEL_BIND_ADDRESS_INVALID },
    );
  }
  if (!isLoopback(host) && !options.token) {
    throw Object.assign(
      new Error(`the panel binds to ${host}, which is not loopback: pass --token <secret> (or PANEL_TOKEN) so only people with it can read Teams`),
      { type: PANEL_TOKEN_REQUIRED },
    );
  }
  const hostNames = new Set([canonicalIp(host), ...(options.allowedHosts ?? []).map(allowedHostName)]);
  let listeningPort = -1; // set once listening; no request arrives before
  const carriers = new Map<string, TeamViewCarrier>();
  const carrierFor = (teamId: string): TeamViewCarrier => {
    let carrier = carriers.get(teamId);
    if (!carrier) {
      // The panel is a person's view: its waits are the operator's, never the Lead's.
      carrier = new TeamViewCarrier(TeamClient.attach(options.client, teamId, OPERATOR), { waitSliceMs: options.waitSliceMs ?? DEFAULT_WAIT_SLICE_MS });
      carriers.set(teamId, carrier);
    }
    return carrier;
  };
  const sockets = new Set<http.ServerResponse>();

  // Node would answer a request without Host with its own 400; the panel's 421 says what to do.
  const server = http.createServer({ requireHostHeader: false }, (request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, 'text/plain', `panel error: ${errorMessage(error)}`);
      else response.end();
    });
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    if (!hostAllowed(request.headers.host, listeningPort, hostNames)) {
      send(
        response,
        421,
        'text/plain',
        `this panel does not answer to Host ${request.headers.host ?? '(none)'}: ` +
          'open it by a loopback name or its bound address, or start it with --allowed-host <name>',
      );
      return;
    }
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
    // No Team has an id outside the grammar: nothing to stream (the client would refuse it with InvalidTeamId).
    if (teamIdProblem(teamId) !== null) {
      send(response, 404, 'text/plain', "no such Team: that is not a Team id (letters, digits, '.', '_', ':' or '-', up to 100)");
      return;
    }
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
  listeningPort = address.port;
  hostNames.add(canonicalIp(address.address)); // `localhost` bound: the address it resolved to
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
