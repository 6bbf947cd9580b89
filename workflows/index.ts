export { teamLead } from './teamLead';
export { noopUpdateBaseline } from './noopUpdateBaseline';
