export { teamLead } from './teamLead';
export { teammate } from './teammate';
export { subagent } from './subagent';
export { noopUpdateBaseline } from './noopUpdateBaseline';
export { noopActivitiesBaseline } from './noopActivitiesBaseline';
