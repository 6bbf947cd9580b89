/**
 * The patch ledger (shared/contract/patches.ts) is the one list of patch ids, and its lists of
 * recorded histories are right. From the sources: every `patched()` and `deprecatePatch()` call in
 * workflows/ and shared/ passes one of the ledger's constants (no string literal), and every entry
 * is checked somewhere, with `deprecatePatch()` exactly when it is deprecated. From the histories in
 * test/histories/ (their patch markers and workflow types): every marker is a ledger id, recorded
 * only by the workflow types the entry names; an entry checked in every run lists exactly the
 * histories of those types recorded without its marker; one checked in some runs only lists some of
 * them (measured by replay, docs/development.md#patches); a deprecated one lists the histories whose
 * marker `patched()` wrote. Reads about 19 MB of JSON, in a few seconds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import * as ts from 'typescript';
import * as patches from '../../shared/contract/patches';
import { PATCH_LEDGER } from '../../shared/contract/patches';

const ROOT = path.join(__dirname, '..', '..');
const HISTORIES = path.join(ROOT, 'test', 'histories');

interface RecordedHistory {
  file: string;
  workflowType: string;
  /** Each patch marker's id, with whether `deprecatePatch()` (true) or `patched()` (false) wrote it. */
  markers: Map<string, boolean>;
}

interface JsonEvent {
  workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } };
  markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, { payloads?: { data?: string }[] }> };
}

function readHistory(file: string): RecordedHistory {
  const bytes = fs.readFileSync(path.join(HISTORIES, file));
  const { events } = JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8')) as { events: JsonEvent[] };
  const workflowType = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (workflowType === undefined) throw new Error(`${file}: its first event is not the workflow's start`);
  const markers = new Map<string, boolean>();
  for (const event of events) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    for (const payload of marker.details?.['patch-data']?.payloads ?? []) {
      const { id, deprecated } = JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')) as { id: string; deprecated?: boolean };
      markers.set(id, deprecated === true);
    }
  }
  return { file, workflowType, markers };
}

const histories: RecordedHistory[] = fs
  .readdirSync(HISTORIES)
  .filter((f) => (f.endsWith('.json') || f.endsWith('.json.gz')) && f !== 'workflow-ids.json')
  .sort()
  .map(readHistory);
const historyFiles = new Set(histories.map((h) => h.file));
const sorted = (files: readonly string[]): string[] => [...files].sort();

/** Every `.ts` file under the folder. */
function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(folder, f));
}

/** Every `patched(...)` and `deprecatePatch(...)` call in workflow and shared code: its file, the function and its argument's text. */
function patchCalls(): { file: string; fn: string; argument: string; identifier: boolean }[] {
  const calls: { file: string; fn: string; argument: string; identifier: boolean }[] = [];
  for (const file of [...sourceFiles('workflows'), ...sourceFiles('shared')]) {
    const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['patched', 'deprecatePatch'].includes(node.expression.text)) {
        const [argument] = node.arguments;
        calls.push({
          file,
          fn: node.expression.text,
          argument: argument?.getText(source) ?? '',
          identifier: argument !== undefined && ts.isIdentifier(argument),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return calls;
}

test('the ledger has one entry per patch constant, each id once', () => {
  const constants = Object.entries(patches)
    .filter(([name]) => name.endsWith('_PATCH'))
    .map(([, value]) => value as string);
  expect(sorted(PATCH_LEDGER.map((e) => e.id))).toEqual(sorted(constants));
  expect(new Set(constants).size).toBe(constants.length);
});

test('every patched() and deprecatePatch() call passes a ledger constant, and every entry is checked', () => {
  const calls = patchCalls();
  expect(calls.filter((c) => !c.identifier || !(c.argument in patches))).toEqual([]);
  const idOf = (name: string): string => (patches as unknown as Record<string, string>)[name]!;
  for (const entry of PATCH_LEDGER) {
    const used = calls.filter((c) => idOf(c.argument) === entry.id);
    expect({ id: entry.id, functions: [...new Set(used.map((c) => c.fn))] }).toEqual({
      id: entry.id,
      functions: [entry.deprecated ? 'deprecatePatch' : 'patched'],
    });
  }
});

test('every patch marker in the recorded histories is a ledger id, recorded only by the workflow types its entry names', () => {
  const ids = new Set(PATCH_LEDGER.map((e) => e.id));
  const strays = histories.flatMap((h) => [...h.markers.keys()].filter((id) => !ids.has(id)).map((id) => `${h.file}: ${id}`));
  expect(strays).toEqual([]);
  for (const entry of PATCH_LEDGER) {
    const elsewhere = histories.filter((h) => h.markers.has(entry.id) && !(entry.workflows as readonly string[]).includes(h.workflowType));
    expect({ id: entry.id, elsewhere: elsewhere.map((h) => h.file) }).toEqual({ id: entry.id, elsewhere: [] });
  }
});

test("each entry's histories needing the old branch are the right ones", () => {
  for (const entry of PATCH_LEDGER) {
    const recordedWithout = histories
      .filter((h) => (entry.workflows as readonly string[]).includes(h.workflowType))
      .filter((h) => entry.onlyAfter === undefined || h.markers.get(entry.onlyAfter) === false)
      .filter((h) => !h.markers.has(entry.id))
      .map((h) => h.file);
    const listed = {
      id: entry.id,
      missing: entry.oldBranch.filter((f) => !historyFiles.has(f)),
      duplicated: entry.oldBranch.length - new Set(entry.oldBranch).size,
    };
    expect(listed).toEqual({ id: entry.id, missing: [], duplicated: 0 });
    if (entry.deprecated) {
      // The old branch is gone: the histories whose marker patched() wrote need the deprecatePatch() call.
      expect({ id: entry.id, oldBranch: entry.oldBranch }).toEqual({ id: entry.id, oldBranch: [] });
      const undeprecated = histories.filter((h) => h.markers.get(entry.id) === false).map((h) => h.file);
      expect({ id: entry.id, undeprecatedMarkers: sorted(entry.undeprecatedMarkers ?? []) }).toEqual({ id: entry.id, undeprecatedMarkers: undeprecated });
    } else if (entry.checked === 'every run') {
      expect({ id: entry.id, oldBranch: sorted(entry.oldBranch) }).toEqual({ id: entry.id, oldBranch: recordedWithout });
    } else {
      expect({ id: entry.id, notRecordedWithout: entry.oldBranch.filter((f) => !recordedWithout.includes(f)) }).toEqual({
        id: entry.id,
        notRecordedWithout: [],
      });
    }
  }
});
