/**
 * docs/seed-rules.md lists every normative rule of the seed with its status, the files that enforce
 * it and the tests that prove it, each written `path › full jest name`. This keeps the last column
 * true: every listed file exists, and every listed name is the full name jest reports for a test in
 * that file (its describe titles and its own title joined by spaces). Titles are read from the
 * file's syntax tree, so a renamed test or describe block fails here; titles built from string
 * concatenations and top-level consts are resolved, and `each` placeholders (%s, %j, ...) match
 * whatever jest substitutes for them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const TABLE = path.join(ROOT, 'docs', 'seed-rules.md');
const STATUSES = ['enforced', 'partly', 'not yet'];
const NONE = 'none yet';
/** The proof cell of a rule about what the documentation claims (e.g. that no guarantee is made). */
const DOCUMENTATION_RULE = 'none: a documentation rule';

export interface RuleRow {
  id: number;
  rule: string;
  status: string;
  tests: string[];
  documentationRule: boolean;
}

/** The table's rows: `| # | rule | status | enforced in | proved by |`, tests separated by `<br>`. */
export function parseRows(markdown: string): RuleRow[] {
  return markdown
    .split('\n')
    .filter((line) => /^\|\s*\d+\s*\|/.test(line))
    .map((line) => {
      const cells = line
        .trim()
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split(' | ')
        .map((cell) => cell.trim());
      if (cells.length !== 5) throw new Error(`a rule row needs 5 cells, this one has ${cells.length}: ${line.slice(0, 120)}`);
      const [id, rule, status, , tests] = cells as [string, string, string, string, string];
      return {
        id: Number(id),
        rule,
        status,
        tests: tests
          .split('<br>')
          .map((t) => t.trim())
          .filter((t) => t !== '' && t !== NONE && t !== DOCUMENTATION_RULE),
        documentationRule: tests === DOCUMENTATION_RULE,
      };
    });
}

const TEST_FUNCTIONS = new Set(['test', 'it']);
const BLOCK_FUNCTIONS = new Set(['describe']);

/** `test`, `it.each(...)`, `describe.only`, ...: the root identifier of a jest call's callee. */
function jestFunction(callee: ts.Expression): string | null {
  let current: ts.Expression = callee;
  for (;;) {
    if (ts.isIdentifier(current)) return current.text;
    if (ts.isPropertyAccessExpression(current)) current = current.expression;
    else if (ts.isCallExpression(current)) current = current.expression;
    else return null;
  }
}

/** The string a title expression evaluates to: literals, `+` concatenations, templates and top-level consts; null otherwise. */
function evaluate(node: ts.Expression, consts: Map<string, ts.Expression>, depth = 0): string | null {
  if (depth > 20) return null;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return evaluate(node.expression, consts, depth + 1);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = evaluate(node.left, consts, depth + 1);
    const right = evaluate(node.right, consts, depth + 1);
    return left === null || right === null ? null : left + right;
  }
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const value = evaluate(span.expression, consts, depth + 1);
      if (value === null) return null;
      text += value + span.literal.text;
    }
    return text;
  }
  if (ts.isIdentifier(node)) {
    const init = consts.get(node.text);
    return init ? evaluate(init, consts, depth + 1) : null;
  }
  return null;
}

/** The full names of the tests a file declares, as jest reports them (placeholders of `each` left in). */
export function testNames(source: string, fileName = 'test.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const consts = new Map<string, ts.Expression>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) consts.set(declaration.name.text, declaration.initializer);
    }
  }
  const names: string[] = [];
  const visit = (node: ts.Node, blocks: string[]): void => {
    if (ts.isCallExpression(node)) {
      const fn = jestFunction(node.expression);
      const first = node.arguments[0];
      const title = first && fn !== null && (TEST_FUNCTIONS.has(fn) || BLOCK_FUNCTIONS.has(fn)) ? evaluate(first, consts) : null;
      if (title !== null && fn !== null && TEST_FUNCTIONS.has(fn)) {
        names.push([...blocks, title].join(' '));
        return;
      }
      if (title !== null && fn !== null && BLOCK_FUNCTIONS.has(fn)) {
        for (const argument of node.arguments.slice(1)) visit(argument, [...blocks, title]);
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, blocks));
  };
  visit(file, []);
  return names;
}

/** Whether a listed name is the name jest reports for a declared one: `each` placeholders match any text. */
export function nameMatches(listed: string, declared: string): boolean {
  if (listed === declared) return true;
  if (!/%[sdifjop#]/.test(declared)) return false;
  const pattern = declared
    .split(/(%[sdifjop#%])/)
    .map((part) => (part === '%%' ? '%' : /^%[sdifjop#]$/.test(part) ? '.+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`, 's').test(listed);
}

/** What is wrong with one `path › name` reference, or null when it names a test that exists. */
function referenceProblem(reference: string, cache: Map<string, string[] | null>): string | null {
  // test/cluster/ holds integration-project tests that run only on the cluster (npm run test:cluster).
  const match = /^(test\/(?:unit|host|integration|cluster)\/[^\s›]+\.test\.ts) › (.+)$/.exec(reference);
  if (!match) return `"${reference}" is not written "test/<project>/<file>.test.ts › <full test name>"`;
  const [, file, name] = match as unknown as [string, string, string];
  if (!cache.has(file)) {
    const absolute = path.join(ROOT, file);
    cache.set(file, fs.existsSync(absolute) ? testNames(fs.readFileSync(absolute, 'utf8'), absolute) : null);
  }
  const declared = cache.get(file);
  if (!declared) return `${file} does not exist`;
  if (!declared.some((d) => nameMatches(name, d))) return `${file} has no test named "${name}"`;
  return null;
}

const rows = parseRows(fs.readFileSync(TABLE, 'utf8'));

test('docs/seed-rules.md numbers its rules 1, 2, 3, ... and gives each a known status', () => {
  expect(rows.length).toBeGreaterThan(50);
  expect(rows.map((r) => r.id)).toEqual(rows.map((_, i) => i + 1));
  expect(rows.filter((r) => !STATUSES.includes(r.status)).map((r) => [r.id, r.status])).toEqual([]);
  expect(rows.filter((r) => r.rule === '').map((r) => r.id)).toEqual([]);
});

test('an enforced rule names at least one test that proves it, unless it is a rule about what the documentation claims', () => {
  expect(rows.filter((r) => r.status === 'enforced' && r.tests.length === 0 && !r.documentationRule).map((r) => r.id)).toEqual([]);
});

test('every test the table lists exists: the file, and the full jest name in it', () => {
  const cache = new Map<string, string[] | null>();
  const problems = rows.flatMap((row) =>
    row.tests.map((reference) => referenceProblem(reference, cache)).flatMap((problem) => (problem === null ? [] : [`rule ${row.id}: ${problem}`])),
  );
  expect(problems).toEqual([]);
  expect(cache.size).toBeGreaterThan(5);
});

test('the guard reads full names from the syntax tree: describe titles, concatenations, consts and each placeholders', () => {
  const source = [
    "const LONG = 'a title ' + 'in two parts';",
    "describe('outer', () => {",
    "  describe('inner', () => {",
    "    it('does a thing', () => {});",
    "    it.each(['x', 'y'])('takes %s', () => {});",
    '  });',
    '  test(`${LONG}`, () => {});',
    '});',
    "test('top level', () => {});",
    'test(\'concatenated \' + "title", () => {});',
  ].join('\n');
  const names = testNames(source);
  expect(names).toEqual(['outer inner does a thing', 'outer inner takes %s', 'outer a title in two parts', 'top level', 'concatenated title']);
  const found = (name: string): boolean => names.some((d) => nameMatches(name, d));
  expect(found('outer inner does a thing')).toBe(true);
  expect(found('outer inner takes "x"')).toBe(true);
  expect(found('top level')).toBe(true);
  // A renamed test, a title without its describe blocks, a describe title alone: not found.
  expect(found('outer inner does another thing')).toBe(false);
  expect(found('does a thing')).toBe(false);
  expect(found('outer inner')).toBe(false);
  expect(found('outer inner takes')).toBe(false);
});
