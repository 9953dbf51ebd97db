/**
 * Which deployed profiles a plan reads in full (issue 17 §4: a plan of one changed profile against a server
 * of 10,000 must not fetch and parse all of them). From every deployed profile's summary (name, stack,
 * ETag, relativeName, nested children) and the raw document, the scope is:
 *
 * - seeds: the document stack's deployed profiles (the plan diffs them and deletes the ones that left the
 *   document), the deployed profiles whose name or relativeName equals (ignoring case) a document profile's
 *   name or relativeName (ownership, case and FQDN conflicts);
 * - their ancestors, through nested endpoints, deployed or in the document (the preview and failover times
 *   cover every profile that nests a changed one; a delete nested by another stack is refused);
 * - every descendant of those (the routing of each of them depends on its whole subtree; validation follows
 *   nesting for loops and depth).
 *
 * desiredDocument, diff, previewPlan and buildReport read nothing else of the deployed state, so the plan
 * of a document against its scope equals its plan against everything (test/core/plan/scope.test.ts).
 */
import type { ProfileSummary } from '../api';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import { documentSource } from '../model/input';
import { documentStack } from './desired';

/** The summary a server lists for a stored profile. */
export function profileSummary(p: Profile, stack: string, etag: string): ProfileSummary {
  return {
    name: p.name,
    stack,
    etag,
    relativeName: p.dnsConfig.relativeName,
    nested: p.endpoints
      .filter((e) => e.type === 'nestedEndpoints' && typeof e.targetResourceId === 'string')
      .map((e) => childProfileName(e.targetResourceId!)),
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Names, relativeNames and nested children a raw document's profiles mention (malformed parts ignored). */
function documentRefs(raw: unknown): { stack: string; names: string[]; fqdns: string[]; children: Map<string, string[]> } {
  const input = documentSource(raw).input;
  const names: string[] = [];
  const fqdns: string[] = [];
  const children = new Map<string, string[]>();
  const profiles = (input as { profiles?: unknown } | null)?.profiles;
  for (const p of Array.isArray(profiles) ? profiles : []) {
    if (p === null || typeof p !== 'object') continue;
    const o = p as { name?: unknown; dnsConfig?: { relativeName?: unknown } | null; endpoints?: unknown };
    const name = str(o.name);
    if (name !== undefined) {
      names.push(name);
      fqdns.push(name);
    }
    const rn = str(o.dnsConfig?.relativeName);
    if (rn !== undefined) fqdns.push(rn);
    const kids: string[] = [];
    for (const e of Array.isArray(o.endpoints) ? o.endpoints : []) {
      // Any targetResourceId: an Azure endpoint's names no profile, so it adds nothing (a superset is safe).
      const id = str((e as { targetResourceId?: unknown } | null)?.targetResourceId);
      if (id !== undefined) kids.push(childProfileName(id));
    }
    if (name !== undefined)
      children.set(name.toLowerCase(), [...(children.get(name.toLowerCase()) ?? []), ...kids.map((k) => k.toLowerCase())]);
    else for (const k of kids) fqdns.push(k); // an unnamed profile's children still count as referenced
  }
  return { stack: documentStack(input), names, fqdns, children };
}

/**
 * The names of the deployed profiles (as `summaries` spell them) a plan of `raw` must read in full; see the
 * module comment. Case-insensitive throughout, as profile names are.
 */
export function planScope(raw: unknown, summaries: readonly ProfileSummary[]): string[] {
  const doc = documentRefs(raw);
  const byName = new Map<string, ProfileSummary[]>();
  const byFqdn = new Map<string, ProfileSummary[]>();
  const parents = new Map<string, Set<string>>();
  const add = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  };
  for (const s of summaries) {
    add(byName, s.name.toLowerCase(), s);
    add(byFqdn, s.relativeName.toLowerCase(), s);
    for (const c of s.nested) {
      const k = c.toLowerCase();
      const set = parents.get(k);
      if (set) set.add(s.name.toLowerCase());
      else parents.set(k, new Set([s.name.toLowerCase()]));
    }
  }
  for (const [parent, kids] of doc.children) {
    for (const k of kids) {
      const set = parents.get(k);
      if (set) set.add(parent);
      else parents.set(k, new Set([parent]));
    }
  }
  // Seeds (lower-cased names): the stack's profiles, the document's, and those sharing a name or FQDN with it.
  const seeds = new Set<string>();
  for (const s of summaries) if (s.stack === doc.stack) seeds.add(s.name.toLowerCase());
  for (const n of doc.names) seeds.add(n.toLowerCase());
  for (const f of doc.fqdns) {
    for (const s of byFqdn.get(f.toLowerCase()) ?? []) seeds.add(s.name.toLowerCase());
    for (const s of byName.get(f.toLowerCase()) ?? []) seeds.add(s.name.toLowerCase());
  }
  // Ancestors, then every descendant of seeds and ancestors.
  const up = new Set(seeds);
  const queue = [...seeds];
  while (queue.length > 0) {
    for (const p of parents.get(queue.pop()!) ?? [])
      if (!up.has(p)) {
        up.add(p);
        queue.push(p);
      }
  }
  const all = new Set(up);
  const down = [...up];
  while (down.length > 0) {
    const n = down.pop()!;
    const kids = [...(doc.children.get(n) ?? []), ...(byName.get(n) ?? []).flatMap((s) => s.nested.map((c) => c.toLowerCase()))];
    for (const k of kids)
      if (!all.has(k)) {
        all.add(k);
        down.push(k);
      }
  }
  return [...all].flatMap((n) => (byName.get(n) ?? []).map((s) => s.name)).sort();
}
