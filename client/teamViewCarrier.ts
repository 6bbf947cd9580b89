/**
 * One carrier per Team: keeps the Team's agentTeam view (the `getAgentTeamView` query) current for
 * every subscriber without polling. It registers a durable `waitForEdge` on the kinds that change
 * the view (roster, task, status, failure; never mailbox), reads the view once, and reads again
 * only when an edge wakes the wait. A read that returns the view it already has is not sent, so a
 * subscriber gets each changed complete view once. A late subscriber gets the current view first.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { AgentTeamView, TeamUsageView, EdgeKind } from '../shared/contract';
import { errorMessage } from '../shared/util/errors';
import { TEAM_CLOSED } from '../shared/contract/failures';
import type { TeamClient } from './teamClient';

/** The edges after which the view can differ: everything but mailbox traffic. */
export const VIEW_EDGE_KINDS: readonly EdgeKind[] = ['roster', 'task', 'status', 'failure'];
/** The longest wait the Lead allows; an idle Team costs one registration and one read per slice. */
const DEFAULT_WAIT_SLICE_MS = 60 * 60 * 1000;

/**
 * What every subscriber receives: the complete view (null until the first read returns; never a
 * placeholder), whether the Team has finished, and why the carrier cannot reach the Lead right now
 * (shown beside the last view it read).
 */
export interface CarriedFrame {
  view: AgentTeamView | null;
  /** What the Team's model calls used (getTeamUsage), read with each view; null before the first read, or from a worker too old to answer it. */
  usage: TeamUsageView | null;
  closed: boolean;
  unreachable: string | null;
}
export type FrameListener = (frame: CarriedFrame) => void;

export interface CarrierStats {
  /** Edges that woke the carrier's wait. */
  edges: number;
  /** Reads of the view (one after each registration that follows an edge, rollover or timeout). */
  reads: number;
  /** Distinct views published (each went to every subscriber then connected). */
  published: number;
  /** Frames delivered, summed over subscribers. */
  delivered: number;
}

export interface TeamViewCarrierOptions {
  waitSliceMs?: number;
  /** Wait before trying again after the Lead could not be reached (ms). */
  retryDelayMs?: number;
}

export class TeamViewCarrier {
  readonly stats: CarrierStats = { edges: 0, reads: 0, published: 0, delivered: 0 };
  private readonly listeners = new Set<FrameListener>();
  private last: { frame: CarriedFrame; json: string } | null = null;
  private view: AgentTeamView | null = null;
  private usage: TeamUsageView | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private wake: () => void = () => undefined;
  /** Settles on stop(), so the loop leaves a wait in progress at once (the Lead ends it with its slice). */
  private readonly stopping = new Promise<null>((resolve) => (this.wake = () => resolve(null)));

  constructor(
    private readonly team: TeamClient,
    private readonly options: TeamViewCarrierOptions = {},
  ) {}

  get teamId(): string {
    return this.team.teamId;
  }

  /** Adds a subscriber; it gets the current view at once when there is one. Returns the unsubscribe. */
  subscribe(listener: FrameListener): () => void {
    this.listeners.add(listener);
    if (this.last) this.deliver(listener, this.last.frame);
    this.start();
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** Starts the carry loop once; it runs until `stop()` or the Team has finished. */
  start(): void {
    this.running ??= this.carry().finally(() => (this.running = null));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
  }

  private async carry(): Promise<void> {
    const slice = this.options.waitSliceMs ?? DEFAULT_WAIT_SLICE_MS;
    while (!this.stopped) {
      try {
        const wait = await this.team.watchNextEdge(slice, VIEW_EDGE_KINDS);
        if (this.stopped) return;
        await this.read(false);
        const edge = await Promise.race([wait.next(), this.stopping]);
        if (edge) this.stats.edges += 1;
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === TEAM_CLOSED) {
          // A finished Lead still answers queries: its final view is the last frame.
          await this.read(true).catch((readError: unknown) => this.unreachable(readError));
          return;
        }
        this.unreachable(error);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs ?? 2_000)), this.stopping]);
      }
    }
  }

  private async read(closed: boolean): Promise<void> {
    this.stats.reads += 1;
    // Members report usage as their turns end, which are status edges: read with the view, it is as current as the roster.
    [this.view, this.usage] = await Promise.all([this.team.agentTeamView(), this.team.usage().catch(() => null)]);
    this.publish({ view: this.view, usage: this.usage, closed, unreachable: null });
  }

  private unreachable(error: unknown): void {
    this.publish({ view: this.view, usage: this.usage, closed: false, unreachable: `cannot reach Team ${this.team.teamId}: ${errorMessage(error)}` });
  }

  private publish(frame: CarriedFrame): void {
    const json = JSON.stringify(frame);
    if (this.last?.json === json) return;
    this.last = { frame, json };
    this.stats.published += 1;
    for (const listener of this.listeners) this.deliver(listener, frame);
  }

  private deliver(listener: FrameListener, frame: CarriedFrame): void {
    this.stats.delivered += 1;
    try {
      listener(frame);
    } catch {
      // One subscriber's failure (a closed socket) never stops the others.
    }
  }
}
