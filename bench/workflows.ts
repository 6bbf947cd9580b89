/** The benchmark worker's workflows: the production ones plus the baselines. */
export * from '../workflows';
export { noopActivitiesBaseline, noopUpdateBaseline } from './baselines';
