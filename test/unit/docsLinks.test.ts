/**
 * Every relative markdown link in README.md and docs/*.md points at a file that exists, and a link
 * to a heading of a markdown file (`file.md#anchor` or `#anchor`) names a heading that file has.
 * External links (http, https, mailto) are not checked.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const DOCS = path.join(ROOT, 'docs');
const files = [
  path.join(ROOT, 'README.md'),
  ...fs
    .readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** The text a reader sees as prose: fenced code blocks and inline code removed. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutFences = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^()\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

const cases = files.flatMap((file) =>
  links(fs.readFileSync(file, 'utf8'))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => [path.relative(ROOT, file), target] as const),
);

test('README.md and docs/ have relative links to check', () => {
  expect(files.map((f) => path.relative(ROOT, f))).toContain('README.md');
  expect(cases.length).toBeGreaterThan(10);
});

test.each(cases)('%s links to %s, which exists', (from, target) => {
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const source = path.join(ROOT, from);
  const resolved = rawPath === '' ? source : path.resolve(path.dirname(source), decodeURIComponent(rawPath));
  expect([target, fs.existsSync(resolved)]).toEqual([target, true]);
  if (anchor !== undefined && resolved.endsWith('.md')) {
    expect([target, anchors(fs.readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor).toLowerCase())]).toEqual([target, true]);
  }
});

test('anchors follow GitHub: punctuation and code marks dropped, spaces become hyphens', () => {
  expect([...anchors('## Driving a Team: client SDK and the `temporal` CLI\n## Long life: continue-as-new\n## Long life: continue-as-new\n')]).toEqual([
    'driving-a-team-client-sdk-and-the-temporal-cli',
    'long-life-continue-as-new',
    'long-life-continue-as-new-1',
  ]);
  expect(links('[a](docs/x.md) `[b](not-a-link.md)` [c](https://example.com) [d](#here)')).toEqual(['docs/x.md', 'https://example.com', '#here']);
});
