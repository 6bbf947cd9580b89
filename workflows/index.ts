export { teamLead } from './lead/teamLead';
export { teammate } from './teammate';
export { subagent } from './subagent';
