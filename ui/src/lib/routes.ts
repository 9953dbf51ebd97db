/** Hash routes, so that `tmkit serve` only has to serve index.html at /ui/. */
export type Route =
  | { page: 'profiles' }
  | { page: 'profile'; name: string }
  | { page: 'traffic'; name: string }
  | { page: 'not-found'; hash: string };

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '');
  if (h === '' || h === '/' || h === '/profiles') return { page: 'profiles' };
  const m = /^\/profiles\/([^/]+)(\/traffic)?\/?$/.exec(h);
  if (m) {
    let name: string;
    try {
      name = decodeURIComponent(m[1]!);
    } catch {
      return { page: 'not-found', hash };
    }
    return m[2] ? { page: 'traffic', name } : { page: 'profile', name };
  }
  return { page: 'not-found', hash };
}

export const hrefProfile = (name: string): string => `#/profiles/${encodeURIComponent(name)}`;
export const hrefTraffic = (name: string): string => `#/profiles/${encodeURIComponent(name)}/traffic`;
