/**
 * Message content of unknown shape stays the decoded JSON it arrived as. These checks inspect
 * types without rebuilding anything: a generic object parser (zod, spread into a literal) can
 * drop or misinterpret a valid own `__proto__` key, so content is never re-created.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const MAX_CONTENT_DEPTH = 64;

/** Returns a reason the value is not plain JSON, or null when it is. */
export function jsonProblem(value: unknown, depth = 0): string | null {
  if (depth > MAX_CONTENT_DEPTH) return `nested deeper than ${MAX_CONTENT_DEPTH} levels`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'numbers must be finite';
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = jsonProblem(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return 'objects must be plain JSON objects';
    // Object.keys lists an own "__proto__" key like any other; reading it with a property access
    // would return the prototype instead, so go through the own-property descriptor.
    for (const key of Object.keys(value)) {
      const problem = jsonProblem(Object.getOwnPropertyDescriptor(value, key)?.value, depth + 1);
      if (problem) return `${key}: ${problem}`;
    }
    return null;
  }
  return `${typeof value} is not JSON`;
}

export function isJsonValue(value: unknown): value is JsonValue {
  return jsonProblem(value) === null;
}
