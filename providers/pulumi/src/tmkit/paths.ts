/**
 * From tmkit's paths to Pulumi property paths. tmkit addresses list elements by name
 * (`profiles[web].endpoints[eu].weight`, the plan's `endpoints[eu].weight`); Pulumi addresses them by index
 * into the resource's inputs (`endpoints[1].weight`), and shows check failures and detailed diffs at those
 * paths. The translation walks the actual inputs, so it finds each named element where the program put it.
 * Pure.
 */
import { parsePath, type PathSegment } from '../../../../src/core/plan/attributes';
import { pathIndex, pathKey } from '../wire';
import { isObject, type Plain } from '../values';

/** The index of the element named `key` (exact, then case-insensitive), else of a numeric `key`. */
function indexIn(list: readonly Plain[], key: string): number | undefined {
  const named = (exact: boolean): number =>
    list.findIndex(
      (e) => isObject(e) && typeof e.name === 'string' && (exact ? e.name === key : (e.name as string).toLowerCase() === key.toLowerCase()),
    );
  const exact = named(true);
  if (exact >= 0) return exact;
  const loose = named(false);
  if (loose >= 0) return loose;
  if (/^\d+$/.test(key) && Number(key) < list.length) return Number(key);
  return undefined;
}

/**
 * The Pulumi property path of `segments` in `root` (the inputs): named list elements become indices,
 * object keys stay keys (quoted when they need it), and top-level properties are renamed by `rename`
 * (`name` → `profileName`). An element not found in `root` ends the path at its list.
 */
export function pulumiPath(segments: readonly PathSegment[], root: Plain, rename: Readonly<Record<string, string>> = {}): string {
  let path = '';
  let cur: Plain | undefined = root;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const key = 'prop' in seg ? seg.prop : seg.key;
    if (Array.isArray(cur)) {
      const idx = indexIn(cur, key);
      if (idx === undefined) return path;
      path = pathIndex(path, idx);
      cur = cur[idx];
      continue;
    }
    const k = i === 0 ? (rename[key] ?? key) : key;
    path = pathKey(path, k);
    cur = isObject(cur) ? cur[k] : undefined;
  }
  return path;
}

/** A tmkit path (`dnsConfig.ttl`, `endpoints[eu].weight`, `tags["a b"]`) as a Pulumi path in `root`. */
export function toPulumiPath(tmkitPath: string, root: Plain, rename: Readonly<Record<string, string>> = {}): string {
  if (tmkitPath === '' || tmkitPath === '$') return '';
  return pulumiPath(parsePath(tmkitPath), root, rename);
}
