/** The integration tests' workflows (bundled once by globalSetup): the production ones plus the squatter. */
export * from '../../workflows';
export { squatter } from './squatter';
