import type { ProfileStatusReport } from '../api/types';
import { childProfileName } from '../../../src/core/model/names';

export interface TreeNode {
  profile: string;
  status?: ProfileStatusReport;
  /** Why there is no status: `not found`, or the error. */
  missing?: string;
  endpoints: TreeEndpoint[];
}

export interface TreeEndpoint {
  name: string;
  type: string;
  monitorStatus: string;
  reason: string;
  target?: string;
  /** The child profile of a nested endpoint. */
  child?: TreeNode;
  /** The child is already an ancestor (never stored by a valid server, shown rather than looped). */
  cycle?: boolean;
}

/** The child profiles a status report's nested endpoints name. */
export function nestedChildren(s: ProfileStatusReport): string[] {
  return s.endpoints
    .filter((e) => e.type === 'nestedEndpoints' && e.targetResourceId !== undefined)
    .map((e) => childProfileName(e.targetResourceId!));
}

const key = (n: string): string => n.toLowerCase();

/**
 * The nesting tree under `root` from the statuses fetched so far (by profile name, any case). Depth is
 * bounded by `maxDepth` (the validator allows 10 levels); a profile that is its own ancestor is marked, not
 * followed.
 */
export function buildTree(root: string, statuses: ReadonlyMap<string, ProfileStatusReport | string>, maxDepth = 10): TreeNode {
  const byKey = new Map<string, ProfileStatusReport | string>();
  for (const [k, v] of statuses) byKey.set(key(k), v);
  const walk = (name: string, ancestors: string[]): TreeNode => {
    const s = byKey.get(key(name));
    if (s === undefined || typeof s === 'string') return { profile: name, missing: s ?? 'not loaded', endpoints: [] };
    const chain = [...ancestors, key(s.name)];
    return {
      profile: s.name,
      status: s,
      endpoints: s.endpoints.map((e) => {
        const ep: TreeEndpoint = { name: e.name, type: e.type, monitorStatus: e.endpointMonitorStatus, reason: e.reason };
        const target = e.target ?? e.targetResourceId;
        if (target !== undefined) ep.target = target;
        if (e.type === 'nestedEndpoints' && e.targetResourceId !== undefined) {
          const child = childProfileName(e.targetResourceId);
          if (chain.includes(key(child))) ep.cycle = true;
          else if (chain.length < maxDepth) ep.child = walk(child, chain);
        }
        return ep;
      }),
    };
  };
  return walk(root, []);
}
