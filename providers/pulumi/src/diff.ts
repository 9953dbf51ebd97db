/**
 * A generic input diff for Diff and DiffConfig: which properties changed, at which nested path, and whether
 * a change forces replacement. Paths are Pulumi property paths (`nested.port`, `tags[1]`, `labels["a.b"]`), the
 * keys the engine shows in a detailed diff. Pure.
 */
import { pathIndex, pathKey } from './wire';
import { Secret, UNKNOWN, isObject, sameValue, type PropertyMap, type Value } from './values';

/** Per-path change kinds (pulumirpc.PropertyDiff.Kind). */
export type DiffKind = 'add' | 'add-replace' | 'delete' | 'delete-replace' | 'update' | 'update-replace';

export interface DiffResult {
  /** true: changes; false: none; undefined: the provider cannot tell (the engine then diffs itself). */
  changes?: boolean;
  /** Top-level properties whose change forces replacement. */
  replaces?: string[];
  /** Top-level properties that will not change (their outputs stay known during preview). */
  stables?: string[];
  /** Replace by deleting first (the new object cannot exist beside the old one, e.g. the same id). */
  deleteBeforeReplace?: boolean;
  /** Changed paths → kind. When present the engine shows exactly these, not its own diff. */
  detailedDiff?: Record<string, DiffKind>;
}

export interface DiffOptions {
  /**
   * Properties (top-level names or paths) whose change replaces the object. A change at or under one of these
   * paths is a replacement; so is a change to a parent that contains one.
   */
  replaceOnChanges?: readonly string[];
}

/** Splits a property path into its segments (`a.b[0]["c.d"]` → a, b, 0, c.d) for prefix comparisons. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  const re = /([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\./gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < path.length && (m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(m[2]);
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  if (re.lastIndex !== path.length && path.length > 0) throw new Error(`not a property path: ${JSON.stringify(path)}`);
  return out;
}

function isPrefix(a: string[], b: string[]): boolean {
  return a.length <= b.length && a.every((s, i) => s === b[i]);
}

/**
 * Diffs old inputs against new inputs, recursing into objects and arrays so a one-field change of a nested
 * object is reported at its path. Secretness alone is no change; an unknown new value is an update at its path.
 */
export function diffProperties(olds: PropertyMap, news: PropertyMap, opts: DiffOptions = {}): DiffResult {
  const replacePaths = (opts.replaceOnChanges ?? []).map(splitPath);
  const detailed: Record<string, DiffKind> = {};
  const replaces = new Set<string>();
  const changedTop = new Set<string>();

  const forcesReplace = (segments: string[]): boolean => replacePaths.some((r) => isPrefix(r, segments) || isPrefix(segments, r));
  const record = (path: string, segments: string[], kind: 'add' | 'delete' | 'update'): void => {
    const replace = forcesReplace(segments);
    detailed[path] = replace ? `${kind}-replace` : kind;
    changedTop.add(segments[0]!);
    if (replace) replaces.add(segments[0]!);
  };

  /** `undefined` = absent. In objects a null property counts as absent (as Pulumi treats it); in arrays null is a value. */
  const walk = (a: Value | undefined, b: Value | undefined, path: string, segments: string[]): void => {
    if (a === undefined && b === undefined) return;
    if (a === undefined) {
      record(path, segments, 'add');
      return;
    }
    if (b === undefined) {
      record(path, segments, 'delete');
      return;
    }
    const va = a instanceof Secret ? a.value : a;
    const vb = b instanceof Secret ? b.value : b;
    if (vb === UNKNOWN || va === UNKNOWN) {
      record(path, segments, 'update');
      return;
    }
    if (isObject(va) && isObject(vb)) {
      const keys = new Set([...Object.keys(va), ...Object.keys(vb)]);
      for (const k of keys) walk(present(va[k]), present(vb[k]), pathKey(path, k), [...segments, k]);
      return;
    }
    if (Array.isArray(va) && Array.isArray(vb)) {
      for (let i = 0; i < Math.max(va.length, vb.length); i++)
        walk(i < va.length ? va[i] : undefined, i < vb.length ? vb[i] : undefined, pathIndex(path, i), [...segments, String(i)]);
      return;
    }
    if (!sameValue(va, vb)) record(path, segments, 'update');
  };
  const present = (v: Value | undefined): Value | undefined => (v === null ? undefined : v);

  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  for (const k of keys) walk(present(olds[k]), present(news[k]), pathKey('', k), [k]);

  const stables = [...keys].filter((k) => !changedTop.has(k) && k in news).sort();
  const changes = Object.keys(detailed).length > 0;
  return { changes, replaces: [...replaces].sort(), stables, detailedDiff: detailed };
}
