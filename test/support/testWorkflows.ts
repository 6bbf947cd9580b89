/** The integration tests' workflows (bundled once by globalSetup): the production ones plus the squatter, the child planter and the stubborn member. */
export * from '../../workflows';
export { squatter } from './squatter';
export { childPlanter } from './childPlanter';
export { stubbornMember } from './stubbornMember';
