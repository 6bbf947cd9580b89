/** The integration tests' workflows (bundled once by globalSetup): the production ones plus the squatter and the child planter. */
export * from '../../workflows';
export { squatter } from './squatter';
export { childPlanter } from './childPlanter';
