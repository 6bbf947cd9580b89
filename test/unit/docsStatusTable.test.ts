/** The status table in docs/semantics.md is documentation of ALLOWED_TRANSITIONS: keep them equal. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALLOWED_TRANSITIONS } from '../../shared/team';
import { TASK_STATUSES } from '../../shared/contract/vocabulary';

test('the status table in docs/semantics.md states exactly the transitions the core enforces', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'semantics.md'), 'utf8');
  const block = /<!-- status-table:start -->([\s\S]*?)<!-- status-table:end -->/.exec(doc)?.[1];
  expect(block).toBeDefined();
  const rows = block!
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  expect(header?.slice(1)).toEqual([...TASK_STATUSES]);
  const documented: Record<string, string[]> = {};
  for (const [from, ...cells] of body) {
    documented[from!] = TASK_STATUSES.filter((_, i) => cells[i] === 'yes');
  }
  const enforced = Object.fromEntries(TASK_STATUSES.map((s) => [s, [...ALLOWED_TRANSITIONS[s]].sort()]));
  expect(Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, [...v].sort()]))).toEqual(enforced);
});
