/**
 * The public wire contract: what a client, a parent workflow or an operator may rely on. Every
 * Update, Signal and Query is named exactly like its wire name; the docs document each.
 *  - callers.ts: who acts (the Lead, the operator) and which callers carry the Lead's authority;
 *  - lead.ts: what the Lead workflow handles (task, roster, mailbox, wait, agent Updates; its
 *    Signals and Queries), with their payloads, the Lead's input and result;
 *  - updates.ts: the registry of the Lead's Updates, keyed by wire name (gate, idempotency, read-only, deadline, who);
 *  - session.ts: what teammate and subagent workflows handle, their input, view and memo descriptor;
 *  - agent.ts: conversation entries, tool profiles, the Lead agent's options and view;
 *  - workflows.ts: workflow type names and workflow function types; workflowInputs.ts: the
 *    schemas their public inputs are parsed with;
 *  - activities.ts: activity interfaces, implemented by activities/ and proxied by workflows/.
 * Continue-as-new carried state is internal and lives elsewhere (shared/lead/carried.ts,
 * shared/session/carried.ts).
 */
export * from './callers';
export * from './vocabulary';
export * from './agent';
export * from './lead';
export * from './updates';
export * from './session';
export * from './workflows';
export * from './activities';
export * from './agentTeamView';
export * from './team';
export * from './taskCommands';
export * from './requests';
export * from './reaper';
export * from './workflowInputs';
export * from './modelNames';
export * from './usage';
export * from './teamUsage';
export * from './budgets';
export * from './reservedIds';
export * from './patches';
