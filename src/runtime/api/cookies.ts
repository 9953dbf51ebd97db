/**
 * `GET /v1/dns/cookies` and `POST /v1/dns/cookies/rotate`: where the DNS cookie secret is kept, and its
 * rotation (dns/cookie-secrets.ts): a new current secret, the old one still accepted as the previous. In a
 * cluster the secret is one etcd key, so a rotation on any node reaches every node. With `--no-cookies`
 * both answer 404 with a hint. The secret itself never leaves the server.
 */
import type { DnsCookiesReport } from '../../core/api';
import { CookieSecretError, type CookieSecretSource } from '../dns';
import type { Store } from '../../core/store';
import { audit, callerOf } from './audit';
import { ApiProblem } from './errors';
import { route, type Ctx, type Reply, type Route } from './http';

const OFF = 'DNS cookies are off on this server (tmkit serve --no-cookies)';

/** The routes; `cookies` undefined: cookies are off (404). */
/** `store`: where the audit log of rotations goes. */
export function cookieRoutes(cookies: CookieSecretSource | undefined, store?: Store): Route[] {
  const on = (): CookieSecretSource => {
    if (!cookies) throw ApiProblem.of(404, 'COOKIES_OFF', OFF);
    return cookies;
  };
  const report = (c: CookieSecretSource): DnsCookiesReport => ({ enabled: true, ...c.info() });
  return [
    route('/v1/dns/cookies', { GET: async (): Promise<Reply<DnsCookiesReport>> => ({ status: 200, body: report(on()) }) }),
    route('/v1/dns/cookies/rotate', {
      POST: async (x: Ctx): Promise<Reply<DnsCookiesReport>> => {
        const c = on();
        const caller = callerOf(x);
        try {
          await c.rotate();
        } catch (err) {
          // Other nodes rotating at the same moment, five times over: the request is fine, retry it.
          if (err instanceof CookieSecretError) throw ApiProblem.of(409, 'COOKIES_ROTATION', err.message);
          throw err;
        }
        if (store) await audit(store, caller, 'cookies.rotate', 'dns cookies');
        return { status: 200, body: report(c) };
      },
    }),
  ];
}
