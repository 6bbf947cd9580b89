/**
 * One descriptor per Update (shared/contract/updates.ts): every Update the contract defines has
 * exactly one, and docs/wire-contract.md's Update table lists the same Updates in the same order,
 * each with the authority its descriptor states.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { READ_ONLY_UPDATES } from '../../client/deadlines';
import * as lead from '../../shared/contract/lead';
import type { UpdateAuthority } from '../../shared/contract/updates';
import { LEAD_UPDATES, leadUpdate } from '../../shared/contract/updates';

/** How the docs' "Who" cell opens for each authority. */
const WHO_TEXT: Record<UpdateAuthority, string> = {
  anyone: 'the operator or any member',
  member: 'any member',
  ownerOrLead: 'owner, Lead or operator',
  lead: 'Lead or operator',
};

const names = LEAD_UPDATES.map((d) => d.definition.name);

test('every Update the contract defines has exactly one descriptor', () => {
  const defined = Object.entries(lead)
    .filter(([key, value]) => key.endsWith('Update') && typeof value === 'object' && value !== null && 'name' in value)
    .map(([, value]) => (value as { name: string }).name);
  expect([...names].sort()).toEqual([...defined].sort());
  expect(new Set(names).size).toBe(names.length);
  for (const name of names) expect(leadUpdate(name)?.definition.name).toBe(name);
  expect(leadUpdate('__proto__')).toBeUndefined();
  expect(leadUpdate('toString')).toBeUndefined();
});

test('the descriptors are consistent: reads are never remembered, only board reads are produced again, only disposal is ungated', () => {
  for (const d of LEAD_UPDATES) {
    if (d.reproducedWhenDeferred) expect(d.readOnly && !d.idempotent && d.gate === 'board').toBe(true);
    if (d.readOnly) expect(d.idempotent).toBe(false);
    expect(d.gate === 'never').toBe(d.definition.name === 'disposeTeam');
  }
});

test("docs/wire-contract.md's Update table lists the descriptors' Updates in order, with their authority", () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'wire-contract.md'), 'utf8');
  const lines = doc.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| Update | Input'));
  expect(header).toBeGreaterThan(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    // Cells are separated by unescaped pipes (`\|` stands inside a cell).
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  expect(rows.map((cells) => cells[0])).toEqual(names.map((name) => `\`${name}\``));
  for (const [i, descriptor] of LEAD_UPDATES.entries()) {
    const who = rows[i]!.at(-1)!;
    expect(`${descriptor.definition.name}: ${who}`).toMatch(new RegExp(`^${descriptor.definition.name}: ${WHO_TEXT[descriptor.who]}(?:$|[,;])`));
  }
});

test("the client's read-only Updates (a new update id is safe on retry) are the descriptors' and have not changed", () => {
  expect([...READ_ONLY_UPDATES].sort()).toEqual(['listTasks', 'listTasksPage', 'readTask', 'waitForEdge']);
});
