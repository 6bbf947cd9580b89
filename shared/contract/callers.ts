/**
 * Who acts: the `caller` of every attributed Update, and the `from` of every message. The wire
 * takes a string; these are the two values that are not teammate names.
 *
 * Pure and at the bottom of the contract: it imports nothing, so the core (shared/team) and every
 * runtime read the caller vocabulary from here.
 */

/** The Lead: the Lead agent's own tools, and callers that act as the Lead (older clients, `--as lead`). */
export const LEAD = 'lead';

/**
 * A person: the CLI, the panel and a TeamClient created as the operator. It has the Lead's
 * authority unless a rule says otherwise (it owns no tasks, since it is not on the roster).
 *
 * Why not a plain word such as "operator": teammate names are lowercase kebab-case, so a Team could
 * already hold a teammate called "operator", whose own tool calls would then carry this caller.
 * The "@" keeps the value outside the grammar of teammate names, so no member's runtime can ever
 * produce it, and no roster rule (or recorded history) has to change to reserve it.
 */
export const OPERATOR = '@operator';

/** Teammate names are lowercase kebab-case of at most this many characters (shared/team/roster.ts has the rule). */
export const MAX_MEMBER_NAME_LENGTH = 40;

/** The callers that carry the Lead's authority: the Lead agent and the operator. */
export function hasLeadAuthority(caller: string): boolean {
  return caller === LEAD || caller === OPERATOR;
}
