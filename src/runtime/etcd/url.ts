/**
 * `tmkit serve --store etcd://HOST:PORT[,HOST:PORT…][/PREFIX]` (plain gRPC) or `etcds://…` (TLS). The
 * optional path is the key prefix (default `/tmkit/`), so several tmkit clusters (or tests) can share one
 * etcd. Credentials never go in the URL: TLS files and the etcd user come from options / the environment.
 */
import { isIP } from 'node:net';

export interface EtcdTarget {
  /** `http://host:port` or `https://host:port`, as the etcd3 client takes them. */
  hosts: string[];
  /** Key prefix, always ending in `/` (default `/tmkit/`). */
  prefix: string;
  tls: boolean;
}

export const DEFAULT_PREFIX = '/tmkit/';

/** Parses the `--store` value; throws an Error naming the flag and what is wrong. */
export function parseEtcdUrl(value: string, flag = '--store'): EtcdTarget {
  const m = /^(etcds?):\/\/([^/]*)(\/.*)?$/.exec(value.trim());
  if (!m) throw new Error(`${flag} ${value}: expected etcd://HOST:PORT[,HOST:PORT...][/PREFIX] (or etcds:// for TLS)`);
  const tls = m[1] === 'etcds';
  const hosts = m[2]!
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  if (hosts.length === 0) throw new Error(`${flag} ${value}: no etcd endpoint; write etcd://127.0.0.1:2379`);
  const out = hosts.map((h) => {
    const hm = /^\[([^\]]+)\]:(\d+)$/.exec(h) ?? /^([^:[\]]+):(\d+)$/.exec(h);
    const port = hm ? Number(hm[2]) : NaN;
    if (!hm || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`${flag} ${value}: '${h}' is not HOST:PORT (etcd's client port, usually 2379; IPv6 as [::1]:2379)`);
    }
    const host = hm[1]!;
    if (isIP(host) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host))
      throw new Error(`${flag} ${value}: '${host}' is not a host name or IP address`);
    return `${tls ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  });
  let prefix = m[3] ?? '';
  if (prefix === '' || prefix === '/') prefix = DEFAULT_PREFIX;
  if (!/^\/[A-Za-z0-9._\-/]*$/.test(prefix))
    throw new Error(`${flag} ${value}: the key prefix '${prefix}' may hold only letters, digits, '.', '_', '-' and '/'`);
  if (!prefix.endsWith('/')) prefix += '/';
  return { hosts: out, prefix, tls };
}
