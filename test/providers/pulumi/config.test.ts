/** tmkit provider config (providers/pulumi/src/config.ts): check failures by key, env fallback, defaults. */
import { checkConfig, resolveConfig } from '../../../providers/pulumi/src/config';
import { tmkitProvider } from '../../../providers/pulumi/src/tmkit';
import { Secret, UNKNOWN, isSecret } from '../../../providers/pulumi/src/values';

test('a valid config passes and the token comes back secret even when given in plain text', () => {
  const r = checkConfig({ server: 'https://tm.example.net:5380', token: 'abc', stack: 'team-a' });
  expect(r.failures).toEqual([]);
  expect(r.inputs).toEqual({ server: 'https://tm.example.net:5380', token: new Secret('abc'), stack: 'team-a' });
});

test.each([
  [{ server: 'tm.example.net' }, 'server', /"tm\.example\.net" is not a URL: give the management API's base URL/],
  [{ server: 'ftp://x' }, 'server', /must be an http:\/\/ or https:\/\/ URL/],
  [{ server: 5380 }, 'server', /tmkit:server must be a string, not number/],
  [{ stack: '-bad' }, 'stack', /tmkit:stack "-bad" is invalid: stack is a DNS label/],
  [{ stack: 'a'.repeat(64) }, 'stack', /is invalid/],
  [{ token: '  ' }, 'token', /tmkit:token is empty/],
  [
    { sever: 'http://x' },
    'sever',
    /unknown configuration key "tmkit:sever": the tmkit provider takes tmkit:server, tmkit:token, tmkit:stack/,
  ],
])('%j → failure at %s', (news, property, reason) => {
  const r = checkConfig(news as never);
  expect(r.failures).toHaveLength(1);
  expect(r.failures[0]!.property).toBe(property);
  expect(r.failures[0]!.reason).toMatch(reason);
});

test('every problem is reported at once; engine keys and unknown values pass', () => {
  expect(checkConfig({ server: 'x', stack: '_', other: 1 }).failures.map((f) => f.property)).toEqual(['server', 'stack', 'other']);
  const r = checkConfig({ version: '1.0.0', token: UNKNOWN, server: UNKNOWN });
  expect(r.failures).toEqual([]);
  expect(isSecret(r.inputs.token)).toBe(true);
});

test('resolve: config first, then TMKIT_SERVER / TMKIT_TOKEN, stack default "pulumi"', () => {
  const env = { TMKIT_SERVER: 'http://env:1', TMKIT_TOKEN: ' env-token ' };
  expect(resolveConfig({}, env)).toEqual({ server: 'http://env:1', token: 'env-token', stack: 'pulumi' });
  expect(resolveConfig({ server: 'http://cfg:2', token: new Secret('cfg-token'), stack: 's1' }, env)).toEqual({
    server: 'http://cfg:2',
    token: 'cfg-token',
    stack: 's1',
  });
  expect(resolveConfig({ server: '', token: null }, {})).toEqual({ server: undefined, token: undefined, stack: 'pulumi' });
});

test('the tmkit provider resolves its config on configure (with the env it was given)', async () => {
  const p = tmkitProvider({ TMKIT_TOKEN: 'from-env' });
  expect(p.config).toBeUndefined();
  await p.configure({ server: 'http://127.0.0.1:5380' });
  expect(p.config).toEqual({ server: 'http://127.0.0.1:5380', token: 'from-env', stack: 'pulumi' });
  expect(JSON.parse(p.schema()).name).toBe('tmkit');
});
