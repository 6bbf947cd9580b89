/**
 * Temporary: removed when the Lead rewrite lands. Only the Lead's own workflow files still import
 * this barrel; everything else imports the wire contract (shared/contract) and the carried state
 * (shared/lead/carried.ts, shared/session/carried.ts) directly.
 */
export * from './contract';
export * from './lead/carried';
export * from './session/carried';
/**
 * The Lead files read `input.carried` off a TeamLeadInput; until they move to LeadRunInput, this
 * barrel's TeamLeadInput is the run input (an explicit export shadows the contract's, which has
 * only the public fields).
 */
export type { LeadRunInput as TeamLeadInput } from './lead/carried';
