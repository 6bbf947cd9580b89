import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes the project registers on the server (scripts/devServer.ts,
 * docker-compose.yml). Set by the client when it starts a Team, so `temporal workflow list
 * --query 'AgentTeamId="..."'` finds a Team's Lead and (later) its teammates.
 */
export const AGENT_TEAM_ID = defineSearchAttributeKey('AgentTeamId', 'KEYWORD');
export const AGENT_TEAM_ROLE = defineSearchAttributeKey('AgentTeamRole', 'KEYWORD');
export const AGENT_TEAM_MEMBER = defineSearchAttributeKey('AgentTeamMember', 'KEYWORD');
/** A member's roster phase as the Lead last recorded it (provisioning, active, stopped, failed...); set by the Lead on itself for the `lead` row. */
export const AGENT_TEAM_PHASE = defineSearchAttributeKey('AgentTeamPhase', 'KEYWORD');
/** A member's live status (idle, running, waiting...), upserted by the member's own workflow when it changes. */
export const AGENT_TEAM_STATUS = defineSearchAttributeKey('AgentTeamStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTE_REGISTRATIONS = [
  'AgentTeamId=Keyword',
  'AgentTeamRole=Keyword',
  'AgentTeamMember=Keyword',
  'AgentTeamPhase=Keyword',
  'AgentTeamStatus=Keyword',
] as const;
