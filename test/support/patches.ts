/** The patches a run recorded, read from its history's patch markers. */
import type { temporal } from '@temporalio/proto';

/** The patch ids of the history's patch markers, in the order they were recorded. */
export function recordedPatchIds(events: readonly temporal.api.history.v1.IHistoryEvent[]): string[] {
  return events.flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return (marker.details?.['patch-data']?.payloads ?? []).map((p) => (JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as { id: string }).id);
  });
}
