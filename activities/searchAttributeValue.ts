/**
 * A keyword search attribute's value as the server returns it raw (a describe's or a visibility
 * record's `indexedFields`): the one decoding the ownership check and the orphan reaper share.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';

/** The string value of keyword attribute `key`, or null (absent, not the record's own field, undecodable, or not a string). */
export function keywordAttribute(fields: Record<string, Payload> | null | undefined, key: string): string | null {
  if (!fields || !Object.hasOwn(fields, key)) return null;
  const payload = fields[key];
  if (!payload) return null;
  try {
    const value: unknown = defaultPayloadConverter.fromPayload(payload);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
