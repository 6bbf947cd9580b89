/**
 * Advisory write scopes: relative path prefixes inside the shared checkout. Pure string logic
 * (no node:path) because this module is bundled into workflow code.
 */

export type ScopeResult = { ok: true; scope: string } | { ok: false; reason: string };

/** The whole checkout. */
export const ROOT_SCOPE = '.';

export function normalizeWriteScope(raw: string): ScopeResult {
  if (raw.trim() === '') return { ok: false, reason: 'a write scope must not be empty; use "." for the whole checkout' };
  const unified = raw.trim().replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[A-Za-z]:/.test(unified) || unified.startsWith('~')) {
    return { ok: false, reason: `"${raw}" is absolute; write scopes are paths relative to the shared checkout` };
  }
  const segments: string[] = [];
  for (const segment of unified.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return { ok: false, reason: `"${raw}" escapes the checkout with ".."` };
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return { ok: true, scope: segments.length === 0 ? ROOT_SCOPE : segments.join('/') };
}

/** Normalizes and de-duplicates a list, keeping first-seen order. */
export function normalizeWriteScopes(raw: readonly string[]): { ok: true; scopes: string[] } | { ok: false; reason: string } {
  const scopes: string[] = [];
  for (const item of raw) {
    const result = normalizeWriteScope(item);
    if (!result.ok) return result;
    if (!scopes.includes(result.scope)) scopes.push(result.scope);
  }
  return { ok: true, scopes };
}

/** Two normalized scopes overlap when one is a path-segment prefix of the other. */
export function scopesOverlap(a: string, b: string): boolean {
  if (a === ROOT_SCOPE || b === ROOT_SCOPE || a === b) return true;
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
