/**
 * `pulumi up` of the nested scenario (contoso.ts) against a tmkit runtime. Config (all optional):
 *   tmkit:server, tmkit:token (secret), tmkit:stack  — the provider's (or TMKIT_SERVER / TMKIT_TOKEN)
 *   westus, production, canary, eastasia             — endpoint addresses
 *   monitorPort                                       — the port the health checks probe
 *   canaryWeight                                      — the canary's weight against production's 90
 */
import * as pulumi from '@pulumi/pulumi';
import { contoso } from './contoso';

const config = new pulumi.Config();
const out = contoso({
  targets: {
    westus: config.get('westus') ?? '192.0.2.10',
    production: config.get('production') ?? '192.0.2.20',
    canary: config.get('canary') ?? '192.0.2.21',
    eastasia: config.get('eastasia') ?? '192.0.2.30',
  },
  monitorPort: config.getNumber('monitorPort') ?? 80,
  canaryWeight: config.getNumber('canaryWeight') ?? 10,
});

export const fqdn = out.fqdn;
export const childFqdn = out.childFqdn;
export const appId = out.appId;
