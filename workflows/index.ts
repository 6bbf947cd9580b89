export { teamLead } from './lead/teamLead';
export { teammate } from './session/teammate';
export { subagent } from './session/subagent';
export { orphanReaper } from './reaper';
