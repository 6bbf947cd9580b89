/**
 * The workflow's current details (the Web UI's "Current Details", `temporal workflow metadata`),
 * rendered when someone reads them rather than whenever state changes.
 *
 * Both readers ask through the SDK's built-in `__temporal_workflow_metadata` query, which returns
 * whatever `setCurrentDetails` last stored. The internals interceptor (workflows/interceptors.ts)
 * sees the query's activation before its job runs and stores a fresh rendering there. No Update,
 * signal or turn renders the details on its own path, however many events one activation applies.
 * setCurrentDetails is not a command: it changes nothing in the history, so it is safe in any
 * activation, on replay too.
 */
import { setCurrentDetails, type ActivateInput } from '@temporalio/workflow';
import { memberDetails, type MemberActivity } from '../../shared/text/webUi';

/** The SDK's query behind the Web UI's current details. */
const METADATA_QUERY = '__temporal_workflow_metadata';

type Activation = ActivateInput['activation'];

/** This workflow's renderer (module state is per workflow in the SDK's sandbox); null until it registers one. */
let render: (() => string) | null = null;

/** Registers what this workflow shows as its current details, rendered on each read. */
export function showCurrentDetails(renderer: () => string): void {
  render = renderer;
}

/** Called by the internals interceptor before an activation's jobs run (workflows/interceptors.ts). */
export function renderBeforeMetadataQuery(activation: Activation): void {
  if (render === null || !activation.jobs?.some((job) => job.queryWorkflow?.queryType === METADATA_QUERY)) return;
  try {
    setCurrentDetails(render());
  } catch {
    // The details are advisory: a rendering that fails leaves the last one shown rather than failing the query's activation.
  }
}

/** A teammate's or subagent's current details: its live status, its turn and the step the turn is at. */
export class MemberDetails {
  private activity: MemberActivity;

  constructor(turns: number) {
    this.activity = { status: 'idle', turn: turns, step: null };
    showCurrentDetails(() => memberDetails(this.activity));
  }

  status(status: MemberActivity['status'], turn: number): void {
    this.activity = { status, turn, step: null };
  }

  step(step: string): void {
    this.activity = { ...this.activity, step };
  }
}
