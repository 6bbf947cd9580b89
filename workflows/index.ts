export { teamLead } from './teamLead';
export { teammate } from './teammate';
export { subagent } from './subagent';
