import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * Custom search attributes the project registers on the server (scripts/devServer.ts,
 * docker-compose.yml). Set by the client when it starts a Team, so `temporal workflow list
 * --query 'AgentTeamId="..."'` finds a Team's Lead and (later) its teammates.
 */
export const AGENT_TEAM_ID = defineSearchAttributeKey('AgentTeamId', 'KEYWORD');
export const AGENT_TEAM_ROLE = defineSearchAttributeKey('AgentTeamRole', 'KEYWORD');
export const AGENT_TEAM_MEMBER = defineSearchAttributeKey('AgentTeamMember', 'KEYWORD');

export const SEARCH_ATTRIBUTE_REGISTRATIONS = ['AgentTeamId=Keyword', 'AgentTeamRole=Keyword', 'AgentTeamMember=Keyword'] as const;
