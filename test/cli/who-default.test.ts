/** The operator `--who` names when not given (src/cli/util/operations.ts defaultWho): the OS user, as a valid name. */
import { defaultWho } from '../../src/cli/util/operations';
import { WHO_NAME } from '../../src/core/operations/audit';

test('--who defaults to $USER, then $USERNAME, then the OS account, made a valid name', () => {
  expect(defaultWho({ USER: 'alice' })).toBe('alice');
  expect(defaultWho({ USER: '', USERNAME: 'bob' })).toBe('bob');
  expect(defaultWho({ USER: 'CORP\\carol' })).toBe('CORP_carol');
  expect(defaultWho({ USER: '-x'.repeat(40) })).toMatch(WHO_NAME);
  const os = defaultWho({});
  expect(os).toMatch(WHO_NAME);
  expect(os).not.toBe('');
});
