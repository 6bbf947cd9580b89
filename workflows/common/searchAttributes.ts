/**
 * Keeps a workflow's own `AgentTeamPhase` / `AgentTeamStatus` search attributes current, so the
 * Web UI and `temporal workflow list --query` can filter a Team's members by what they are doing.
 * Upserting is a command: runs recorded before these attributes existed replay without it
 * (the patch), and a value that did not change issues nothing (workflowInfo carries the current
 * values, on replay too, and across continue-as-new).
 */
import type { defineSearchAttributeKey } from '@temporalio/common';
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { IDENTITY_SEARCH_ATTRIBUTES_PATCH, PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH } from '../../shared/contract/patches';

/** A keyword attribute's key (the SDK does not export the key type itself). */
type KeywordKey = ReturnType<typeof defineSearchAttributeKey<'KEYWORD'>>;

export function keepSearchAttribute(key: KeywordKey, value: string): void {
  if (workflowInfo().typedSearchAttributes.get(key) === value) return;
  if (!patched(PHASE_STATUS_SEARCH_ATTRIBUTES_PATCH)) return;
  upsertSearchAttributes([{ key, value }]);
}

/**
 * The attributes a workflow is found by (`AgentTeamId`, `AgentTeamRole`, `AgentTeamMember`), set
 * by the workflow itself whatever started it: a client's start sets them (then nothing is issued),
 * a raw start (`temporal workflow start` without `--search-attribute`) may not. Runs recorded before
 * IDENTITY_SEARCH_ATTRIBUTES_PATCH replay without the upsert (the patch, only consulted when an
 * attribute differs).
 */
export function keepIdentitySearchAttributes(pairs: readonly { key: KeywordKey; value: string }[]): void {
  const current = workflowInfo().typedSearchAttributes;
  const differing = pairs.filter(({ key, value }) => current.get(key) !== value);
  if (differing.length === 0) return;
  if (!patched(IDENTITY_SEARCH_ATTRIBUTES_PATCH)) return;
  upsertSearchAttributes(differing.map(({ key, value }) => ({ key, value })));
}
