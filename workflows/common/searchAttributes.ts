/**
 * Keeps a workflow's own `AgentTeamPhase` / `AgentTeamStatus` search attributes current, so the
 * Web UI and `temporal workflow list --query` can filter a Team's members by what they are doing.
 * Upserting is a command: runs recorded before these attributes existed replay without it
 * (the patch), and a value that did not change issues nothing (workflowInfo carries the current
 * values, on replay too, and across continue-as-new).
 */
import type { defineSearchAttributeKey } from '@temporalio/common';
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';

/** Never rename or reuse: histories recorded since carry this marker. */
export const PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH = 'phase-status-search-attributes-v1';

/** A keyword attribute's key (the SDK does not export the key type itself). */
type KeywordKey = ReturnType<typeof defineSearchAttributeKey<'KEYWORD'>>;

export function keepSearchAttribute(key: KeywordKey, value: string): void {
  if (workflowInfo().typedSearchAttributes.get(key) === value) return;
  if (!patched(PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH)) return;
  upsertSearchAttributes([{ key, value }]);
}
