/**
 * Lookups keyed by a caller- or model-supplied string. Records carried as plain JSON objects
 * inherit from Object.prototype, so `record["constructor"]` would find a function and
 * `record["__proto__"]` the prototype: every such lookup reads own properties only.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.getOwnPropertyDescriptor(record, key)?.value as T | undefined;
}

export function hasOwn(record: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}
