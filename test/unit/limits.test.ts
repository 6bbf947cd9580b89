/**
 * The size budget: the byte measure is UTF-8 of the JSON encoding (checked against Node's own
 * encoder), and README's "Size budget" table states exactly the values of shared/limits.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as limits from '../../shared/limits';

describe('byte measure', () => {
  it('utf8Length equals Buffer.byteLength for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(limits.utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 2_000 },
    );
    expect(limits.utf8Length('\ud83d')).toBe(3); // a lone high surrogate encodes as U+FFFD
    expect(limits.utf8Length('😀')).toBe(4);
  });

  it('jsonBytes is the UTF-8 size of the JSON text the payload converter writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(limits.jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      }),
      { numRuns: 500 },
    );
    expect(limits.jsonBytes(undefined)).toBe(0);
  });
});

describe("README's size budget table", () => {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Size budget'), readme.indexOf('## Development'));
  const rows = [...section.matchAll(/^\| (`[A-Z_]+`(?: \/ `[A-Z_]+`)*) \| ([\d,]+(?: \/ [\d,]+)*) \|/gm)];

  it('lists every limit of shared/limits.ts with its value', () => {
    const stated = new Map<string, number>();
    for (const [, names, values] of rows) {
      const nameList = names!.split(' / ').map((n) => n.replace(/`/g, ''));
      const valueList = values!.split(' / ').map((v) => Number(v.replace(/,/g, '')));
      nameList.forEach((name, i) => stated.set(name, valueList[i]!));
    }
    const actual = Object.entries(limits).filter(([name, value]) => typeof value === 'number' && !name.startsWith('TEMPORAL_'));
    expect(actual.length).toBeGreaterThan(15);
    for (const [name, value] of actual) expect([name, stated.get(name)]).toEqual([name, value]);
    expect(stated.size).toBe(actual.length);
  });

  it('keeps every budget under the hard payload limit', () => {
    expect(limits.PAYLOAD_BUDGET_BYTES).toBeLessThan(limits.TEMPORAL_PAYLOAD_LIMIT_BYTES);
    expect(limits.MAX_MESSAGE_BYTES + limits.CARRIED_CONVERSATION_BUDGET_BYTES).toBeLessThan(limits.PAYLOAD_BUDGET_BYTES);
    expect(limits.PROMPT_BUDGET_BYTES).toBeLessThan(limits.PAYLOAD_BUDGET_BYTES);
    // Every id derived from a Team id fits MAX_ID_LENGTH: `<team>/teammate/<name>/initial`.
    expect(limits.MAX_TEAM_ID_LENGTH + '/teammate/'.length + 40 + '/initial'.length).toBeLessThanOrEqual(limits.MAX_ID_LENGTH);
  });
});
