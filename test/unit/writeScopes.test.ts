import fc from 'fast-check';
import { ROOT_SCOPE, normalizeWriteScope, normalizeWriteScopes, scopesOverlap } from '../../shared/team';
import { anySegmentArb, normalizedScopeArb, plainSegmentArb, rawRelativePathArb } from './support/arbitraries';

function scopeOf(raw: string): string {
  const result = normalizeWriteScope(raw);
  if (!result.ok) throw new Error(`expected "${raw}" to normalize, got: ${result.reason}`);
  return result.scope;
}

describe('normalizeWriteScope', () => {
  it.each([
    ['src', 'src'],
    ['src/', 'src'],
    ['./src', 'src'],
    ['./src/./api/', 'src/api'],
    ['src//api', 'src/api'],
    ['src///api//', 'src/api'],
    ['src/api/..', 'src'],
    ['a/b/../../c', 'c'],
    ['a/b/../c/./d', 'a/c/d'],
    ['src\\api\\handlers', 'src/api/handlers'],
    ['src\\..\\lib', 'lib'],
    ['  src/api  ', 'src/api'],
    ['.', '.'],
    ['./', '.'],
    ['./.', '.'],
    ['a/..', '.'],
    ['a/b/../..', '.'],
    ['...', '...'],
    ['.hidden/file.ts', '.hidden/file.ts'],
  ])('%j normalizes to %j', (raw, expected) => {
    expect(normalizeWriteScope(raw)).toEqual({ ok: true, scope: expected });
  });

  it('uses "." for the whole checkout', () => {
    expect(ROOT_SCOPE).toBe('.');
  });

  it.each([
    ['', 'empty'],
    ['   ', 'whitespace only'],
    ['\t\n', 'whitespace only'],
    ['..', 'parent of the root'],
    ['../x', 'escapes with a leading ..'],
    ['./../x', 'escapes after a ./'],
    ['a/../../x', 'escapes after popping back to the root'],
    ['a/b/../../..', 'escapes at the end'],
    ['a\\..\\..', 'escapes with backslashes'],
    ['/', 'absolute root'],
    ['/etc/passwd', 'absolute POSIX path'],
    ['  /etc', 'absolute after trimming'],
    ['\\windows', 'absolute with a backslash'],
    ['C:/Users', 'drive letter'],
    ['c:\\x', 'drive letter with backslash'],
    ['~/notes', 'home directory'],
  ])('rejects %j (%s) with a reason', (raw) => {
    const result = normalizeWriteScope(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });

  it('never produces empty, "." or ".." segments, backslashes, or a leading / (property)', () => {
    fc.assert(
      fc.property(rawRelativePathArb, (raw) => {
        const result = normalizeWriteScope(raw);
        if (!result.ok) return;
        const { scope } = result;
        if (scope === ROOT_SCOPE) return;
        expect(scope.includes('\\')).toBe(false);
        expect(scope.startsWith('/')).toBe(false);
        for (const segment of scope.split('/')) {
          expect(['', '.', '..']).not.toContain(segment);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with a stack model of the path segments (property)', () => {
    fc.assert(
      fc.property(fc.array(anySegmentArb, { minLength: 1, maxLength: 8 }), fc.constantFrom('/', '\\'), (segments, sep) => {
        // Model: walk the segments with a stack; ".." on an empty stack escapes the checkout.
        const stack: string[] = [];
        let escapes = false;
        for (const s of segments) {
          if (s === '' || s === '.') continue;
          if (s === '..') {
            if (stack.length === 0) {
              escapes = true;
              break;
            }
            stack.pop();
          } else stack.push(s);
        }
        const raw = segments.join(sep);
        const result = normalizeWriteScope(raw);
        if (raw.trim() === '') {
          expect(result.ok).toBe(false);
        } else if (escapes) {
          expect(result.ok).toBe(false);
        } else if (raw.startsWith('/') || raw.startsWith('\\')) {
          // segments starting with '' joined produce an absolute path
          expect(result.ok).toBe(false);
        } else {
          expect(result).toEqual({ ok: true, scope: stack.length === 0 ? '.' : stack.join('/') });
        }
      }),
      { numRuns: 400 },
    );
  });

  it('is idempotent (property)', () => {
    fc.assert(
      fc.property(rawRelativePathArb, (raw) => {
        const first = normalizeWriteScope(raw);
        if (!first.ok) return;
        expect(normalizeWriteScope(first.scope)).toEqual(first);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps plain relative paths verbatim (property)', () => {
    fc.assert(
      fc.property(fc.array(plainSegmentArb, { minLength: 1, maxLength: 5 }), (segments) => {
        expect(scopeOf(segments.join('/'))).toBe(segments.join('/'));
        expect(scopeOf(`./${segments.join('/')}/`)).toBe(segments.join('/'));
      }),
      { numRuns: 200 },
    );
  });
});

describe('normalizeWriteScopes', () => {
  it('returns an empty list for no scopes', () => {
    expect(normalizeWriteScopes([])).toEqual({ ok: true, scopes: [] });
  });

  it('normalizes every item and de-duplicates, keeping first-seen order', () => {
    expect(normalizeWriteScopes(['lib/', 'src', './lib', 'src/api', 'src\\', 'docs/../lib'])).toEqual({ ok: true, scopes: ['lib', 'src', 'src/api'] });
  });

  it('keeps nested scopes that are distinct strings (de-duplication is exact, not by overlap)', () => {
    expect(normalizeWriteScopes(['src', 'src/api', '.'])).toEqual({ ok: true, scopes: ['src', 'src/api', '.'] });
  });

  it.each([[['src', '']], [['src', '../x']], [['/abs', 'src']], [['src', 'lib', 'C:/x']]])('rejects the whole list %j when any item is invalid', (raw) => {
    const result = normalizeWriteScopes(raw);
    expect(result.ok).toBe(false);
  });

  it('yields exactly the distinct normalized scopes (property)', () => {
    fc.assert(
      fc.property(fc.array(rawRelativePathArb, { maxLength: 6 }), (raws) => {
        const each = raws.map(normalizeWriteScope);
        const result = normalizeWriteScopes(raws);
        if (each.some((r) => !r.ok)) {
          expect(result.ok).toBe(false);
          return;
        }
        const expected: string[] = [];
        for (const r of each) if (r.ok && !expected.includes(r.scope)) expected.push(r.scope);
        expect(result).toEqual({ ok: true, scopes: expected });
      }),
      { numRuns: 200 },
    );
  });
});

describe('scopesOverlap', () => {
  it.each([
    ['src', 'src', true],
    ['src', 'src/api', true],
    ['src/api', 'src', true],
    ['src/api/v1', 'src', true],
    ['.', 'src/api', true],
    ['docs', '.', true],
    ['.', '.', true],
    ['src', 'srcx', false],
    ['src', 'src-old/api', false],
    ['src/api', 'src/apix', false],
    ['src/api', 'src/web', false],
    ['src/a', 'lib/a', false],
    ['a/b', 'b', false],
  ])('%j and %j overlap: %s', (a, b, expected) => {
    expect(scopesOverlap(a, b)).toBe(expected);
  });

  it('is reflexive, symmetric and means "one is a segment prefix of the other" (property)', () => {
    const segs = (s: string): string[] => (s === '.' ? [] : s.split('/'));
    const isPrefix = (p: string[], q: string[]): boolean => p.length <= q.length && p.every((x, i) => q[i] === x);
    fc.assert(
      fc.property(normalizedScopeArb, normalizedScopeArb, (a, b) => {
        expect(scopesOverlap(a, a)).toBe(true);
        expect(scopesOverlap(a, b)).toBe(scopesOverlap(b, a));
        expect(scopesOverlap(a, b)).toBe(isPrefix(segs(a), segs(b)) || isPrefix(segs(b), segs(a)));
      }),
      { numRuns: 500 },
    );
  });
});
