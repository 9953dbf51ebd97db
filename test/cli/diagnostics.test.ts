import type { Diagnostic } from '../../src/core/diagnostics';
import { groupByProfile, profileOf, renderText } from '../../src/cli/util/diagnostics';

const d = (path: string, severity: 'error' | 'warning' = 'error'): Diagnostic => ({ severity, code: 'X', path, message: 'm' });

test.each([
  ['profiles[a].ttl', ['a', 'a.b'], 'a'],
  ['profiles[a.b].endpoints[x].weight', ['a', 'a.b'], 'a.b'],
  ['profiles[a.b]', ['a', 'a.b'], 'a.b'],
  ['profiles[a].endpoints', ['a'], 'a'],
  ['profiles[ab].ttl', ['a'], undefined],
  ['profiles[3].name', ['a'], undefined],
  ['$', ['a'], undefined],
])('profileOf(%s)', (path, names, expected) => {
  expect(profileOf(path, names)).toBe(expected);
});

test('groups follow document order, document-level last; errors before warnings in text', () => {
  const diags = [d('$'), d('profiles[b].x', 'warning'), d('profiles[a].y'), d('profiles[b].z')];
  expect(groupByProfile(diags, ['a', 'b']).map((g) => [g.profile, g.diagnostics.length])).toEqual([
    ['a', 1],
    ['b', 2],
    [undefined, 1],
  ]);
  const text = renderText(diags, ['a', 'b']).split('\n');
  expect(text.filter((l) => !l.startsWith(' '))).toEqual(['profile a', 'profile b', 'document', '']);
  expect(text.indexOf('  error   profiles[b].z  X  m')).toBeLessThan(text.indexOf('  warning profiles[b].x  X  m'));
});
