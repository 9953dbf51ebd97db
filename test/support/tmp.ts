import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Makes fresh temp directories; `removeAll()` removes every one made so far. */
export interface TempDirs {
  /** A new empty directory `<os tmpdir>/<prefix>XXXXXX` (the maker's prefix unless another is given). */
  (prefix?: string): string;
  removeAll(): void;
}

/**
 * Fresh temp directories named `<prefix>XXXXXX`. By default they are removed in an `afterAll` registered by this
 * call, so make the call where a jest hook may be declared (file or describe level, not inside a test): that
 * hook runs in declaration order with the file's other `afterAll` hooks. With `{ cleanup: 'manual' }` nothing
 * is registered: call `removeAll()` yourself (after stopping what still writes there, or outside jest).
 */
export function tempDirs(prefix: string, o: { cleanup?: 'afterAll' | 'manual' } = {}): TempDirs {
  const made: string[] = [];
  const make = (p = prefix): string => {
    const d = mkdtempSync(join(tmpdir(), p));
    made.push(d);
    return d;
  };
  const dirs: TempDirs = Object.assign(make, {
    removeAll: (): void => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  });
  if ((o.cleanup ?? 'afterAll') === 'afterAll') afterAll(() => dirs.removeAll());
  return dirs;
}
