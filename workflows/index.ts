export { teamLead } from './teamLead';
export { teammate } from './teammate';
export { noopUpdateBaseline } from './noopUpdateBaseline';
