/**
 * What a webhook may be sent to, and what it sends (docs/webhooks.md): the SSRF stance, the body of one
 * event (JSON as it is, or a Slack/Teams-compatible `{"text"}`) and its signature.
 *
 * SSRF: a webhook URL is given by whoever holds the API token, and tmkit serve often runs inside a network
 * whose private services should not be reachable by a POST from it. So a webhook goes only to public
 * addresses unless the operator says otherwise (`serve --webhook-allow-private`): the URL's host is checked
 * when it is registered and before each delivery (hostRefusal: an IP literal, its embedded IPv4, localhost),
 * and every address a host name resolves to is checked at connect time,
 * the address connected to being the one checked (no DNS rebinding in between). Redirects are not followed.
 */
import { createHmac } from 'node:crypto';
import type { LiveEvent } from '../../core/api';
import { embeddedIpv4, formatIp, nonGlobalReason, nonPublicReason, parseIp, type IpAddress } from '../../core/net/ip';

const ALLOW_PRIVATE_HINT = 'webhooks go to public addresses unless tmkit serve runs with --webhook-allow-private';

/**
 * Why an IP address is no place for a webhook: one of the special-purpose blocks (ip.ts: not public, or not
 * globally reachable), or an IPv6 address that reaches such an IPv4 address through its embedding (IPv4-mapped
 * `::ffff:127.0.0.1`, IPv4-compatible, 6to4 `2002:7f00:1::`, NAT64 `64:ff9b::7f00:1`). A NAT64 or IPv4-mapped
 * address of a public IPv4 address is allowed: DNS64 gives those for public hosts on IPv6-only networks.
 */
function ipRefusal(ip: IpAddress): string | undefined {
  const inner = embeddedIpv4(ip);
  if (inner) {
    const why = nonGlobalReason(inner.ipv4) ?? nonPublicReason(inner.ipv4);
    if (why !== undefined) return `${inner.via} of ${formatIp(inner.ipv4)}, which is ${why}`;
    if (inner.via === 'NAT64' || inner.via === 'IPv4-mapped') return undefined;
  }
  return nonGlobalReason(ip) ?? nonPublicReason(ip);
}

/** Why `address` (an IP literal, brackets allowed) may not be a webhook's destination; undefined when it may. */
export function addressRefusal(address: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const ip = parseIp(address.replace(/^\[(.*)\]$/, '$1'));
  if (!ip) return `'${address}' is not an IP address`;
  const why = ipRefusal(ip);
  return why === undefined ? undefined : `${address} is ${why}: ${ALLOW_PRIVATE_HINT}`;
}

/**
 * The one rule for a webhook URL's host, at add (checkWebhookUrl) and before every delivery (service.ts): an IP
 * literal is checked now (the URL parser has already read `0x7f.1`, `2130706433` and `127.1` as 127.0.0.1 and
 * written IPv6 in its short form); `localhost` and `*.localhost`, with or without trailing dots, are loopback
 * (RFC 6761). Any other name is checked at connect time, every address it resolves to (service.ts `lookup`).
 */
export function hostRefusal(hostname: string, allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (parseIp(host)) return addressRefusal(host, false);
  if (/^(localhost|.*\.localhost)\.*$/i.test(host)) return `${host} is loopback (RFC 6761): ${ALLOW_PRIVATE_HINT}`;
  return undefined;
}

/** The URL, checked (http or https, no credentials, its host by hostRefusal); throws with the reason. */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`'${raw}' is not a URL such as https://hooks.example.com/tmkit`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`'${raw}': webhooks are http:// or https:// URLs`);
  if (url.username !== '' || url.password !== '')
    throw new Error(`'${raw}': put no credentials in the URL; sign deliveries with a secret file instead`);
  const why = hostRefusal(url.hostname, allowPrivate);
  if (why !== undefined) throw new Error(why);
  return url;
}

/** The body of one delivery: `{id, event, at, ...data}` (json), or a chat message (slack). */
export function deliveryBody(event: LiveEvent, id: string, at: string, format: 'json' | 'slack'): string {
  const data = event.data as unknown as Record<string, unknown>;
  if (format === 'slack') return JSON.stringify({ text: chatText(event), tmkit: { id, event: event.type, at, ...data } });
  return JSON.stringify({ id, event: event.type, at: typeof data.at === 'string' ? data.at : at, ...data });
}

/** One line for a chat channel (Slack's and Teams' incoming webhooks both take `{"text": …}`). */
function chatText(event: LiveEvent): string {
  const d = event.data as unknown as Record<string, unknown>;
  if (event.type === 'transition') {
    return `tmkit: ${String(d.profile)}/${String(d.endpoint)} ${String(d.from)} → ${String(d.to)} (${String(d.reason)}) at ${String(d.location)}`;
  }
  if (event.type === 'revision') return `tmkit: configuration revision ${String(d.revision)} is served`;
  if (event.type === 'override') {
    const { action, override: o } = event.data;
    const what = o.kind === 'down' ? 'down' : `weight ${String(o.weight)}`;
    return `tmkit: override ${what} of ${o.profile}/${o.endpoint} ${action} (by ${o.who}, until ${o.expiresAt})${o.reason ? `: ${o.reason}` : ''}`;
  }
  if (event.type === 'drill') {
    const { action, drill: r } = event.data;
    const figures =
      action === 'finished'
        ? `: ${r.status}, switch ${r.switchSeconds ?? '?'} s, revert ${r.revertSeconds ?? '?'} s, bound ` +
          `${r.boundSeconds ?? 'none'}${r.boundSeconds === null ? '' : ' s'}`
        : ` (hold ${r.holdSeconds} s, by ${r.who})`;
    return `tmkit: drill of ${r.profile}/${r.endpoint} ${action}${figures}`;
  }
  if (event.type === 'rrl') {
    const e = event.data;
    return (
      `tmkit: DNS rate limiting ${e.action}${e.mode === 'log' ? ' (log mode)' : ''} for ${e.prefix} (${e.class} ${e.key || '-'}): ` +
      `${e.limited} answers limited over ${e.durationSeconds} s${e.node !== undefined ? ` at ${e.node}` : ''}`
    );
  }
  const parts = Object.entries(d)
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
    .map(([k, v]) => `${k}=${String(v)}`);
  return `tmkit: ${event.type}${parts.length > 0 ? ` ${parts.join(' ')}` : ''}`;
}

/** `X-Tmkit-Signature`: `sha256=` and the hex HMAC-SHA256 of the exact body bytes with the key (secret.ts `hmacKey`). */
export function signature(secret: Buffer | string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
