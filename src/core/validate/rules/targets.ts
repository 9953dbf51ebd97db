/** Endpoint targets: presence per type, syntax, Azure resource ids, addressing-family mix, duplicate IPs. */
import type { Ctx } from '../context';
import { nonPublicReason } from '../../net/ip';
import type { TargetKind } from '../../model/types';
import { has, show } from '../util';

const KIND_NAME: Record<TargetKind, string> = { fqdn: 'FQDN', ipv4: 'IPv4', ipv6: 'IPv6' };
const RECORD_TYPE: Record<TargetKind, string> = { fqdn: 'DomainName', ipv4: 'IPv4Address', ipv6: 'IPv6Address' };

export const AZURE_RESOURCE_TYPES: readonly string[] = [
  'Microsoft.Web/sites',
  'Microsoft.Web/sites/slots',
  'Microsoft.Network/publicIPAddresses',
  'Microsoft.ClassicCompute/domainNames',
  'Microsoft.Compute/cloudServices',
];
const ALLOWED_LOWER = new Set(AZURE_RESOURCE_TYPES.map((t) => t.toLowerCase()));
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ArmId {
  subscription: string;
  resourceGroup: string;
  /** `Namespace/type[/childType…]` as written. */
  resourceType: string;
  name: string;
}

/** Parses `/subscriptions/{s}/resourceGroups/{rg}/providers/{ns}/{type}/{name}[/{type}/{name}]…`. */
export function parseArmId(id: string): ArmId | undefined {
  const s = id.split('/');
  if (s.length < 9 || s.length % 2 === 0 || s[0] !== '') return undefined;
  if (s[1]!.toLowerCase() !== 'subscriptions' || s[3]!.toLowerCase() !== 'resourcegroups' || s[5]!.toLowerCase() !== 'providers')
    return undefined;
  if (s.some((x, i) => i > 0 && (x === '' || (/\s/.test(x) && i < 6)))) return undefined;
  const types = [s[6]!, s[7]!];
  for (let i = 9; i < s.length; i += 2) types.push(s[i]!);
  return { subscription: s[2]!, resourceGroup: s[4]!, resourceType: types.join('/'), name: s[s.length - 1]! };
}

export function checkTargets(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const multi = p.method === 'MultiValue';
    let firstKind: { kind: TargetKind; name: string } | undefined;
    const ips = new Map<string, string>();
    const rts = p.profile.allowedEndpointRecordTypes as unknown;
    const allowed = Array.isArray(rts) && !rts.includes('Any') ? new Set<unknown>(rts) : undefined;
    const webAppRegions = new Map<string, string>();
    for (const e of p.endpoints) {
      const ep = e.ep;
      const target = ep.target as unknown;
      const rid = ep.targetResourceId as unknown;
      if (e.type === 'externalEndpoints') {
        if (!has(e.raw, 'target')) {
          r.report(
            'TARGET_REQUIRED',
            `${e.path}.target`,
            'an external endpoint needs a target: an FQDN, IPv4 or IPv6 address',
            'add target, e.g. "app.contoso.com"',
          );
        }
        if (has(e.raw, 'targetResourceId')) {
          r.report(
            'TARGET_RESOURCE_ID_NOT_ALLOWED',
            `${e.path}.targetResourceId`,
            'external endpoints have no targetResourceId (only azure and nested endpoints do)',
            'remove targetResourceId, or make it an azureEndpoints/nestedEndpoints endpoint',
          );
        }
      } else if (e.type === 'azureEndpoints' || e.type === 'nestedEndpoints') {
        if (!has(e.raw, 'targetResourceId')) {
          r.report(
            'TARGET_RESOURCE_ID_REQUIRED',
            `${e.path}.targetResourceId`,
            e.type === 'azureEndpoints'
              ? 'an Azure endpoint needs targetResourceId: the ARM id of the Azure resource'
              : 'a nested endpoint needs targetResourceId: the child profile name',
            e.type === 'azureEndpoints'
              ? 'add targetResourceId "/subscriptions/…/providers/Microsoft.Web/sites/<app>"'
              : 'add targetResourceId naming the child profile',
          );
        }
        if (e.type === 'azureEndpoints' && typeof rid === 'string') {
          const arm = checkAzureId(ctx, rid, `${e.path}.targetResourceId`);
          const loc = ep.endpointLocation as unknown;
          if (ctx.strictAzure && arm?.resourceType.toLowerCase() === 'microsoft.web/sites' && typeof loc === 'string') {
            const other = webAppRegions.get(loc.toLowerCase());
            if (other !== undefined) {
              r.report(
                'AZURE_WEBAPP_SAME_REGION',
                `${e.path}.targetResourceId`,
                `Web App endpoint "${String(ep.name)}" is in region ${loc} like Web App endpoint ` +
                  `"${other}"; Azure allows one Web App endpoint per region in a profile (--strict-azure)`,
                'add the second app as an external endpoint (its hostname), or nest it in another profile',
              );
            } else webAppRegions.set(loc.toLowerCase(), String(ep.name));
          }
        }
      }
      if (e.type === 'nestedEndpoints') {
        if (has(e.raw, 'target')) {
          r.report(
            'TARGET_IGNORED',
            `${e.path}.target`,
            'target is ignored on a nested endpoint (it answers with the child profile)',
            'remove target',
          );
        }
        continue;
      }
      if (typeof target !== 'string') continue;
      const problem = e.targetProblem;
      if (problem !== undefined) {
        r.report(
          'TARGET_INVALID',
          `${e.path}.target`,
          `target ${show(target)} ${problem}; a target is an IPv4 address, an IPv6 address or an FQDN`,
          'e.g. "app.contoso.com", "203.0.113.10" or "2001:db8::10"',
        );
        continue;
      }
      const t = e.target!;
      if (t.ip) {
        if (ctx.strictAzure) {
          const why = nonPublicReason(t.ip);
          if (why !== undefined) {
            r.report(
              'TARGET_NOT_PUBLIC',
              `${e.path}.target`,
              `target ${target} is ${why}; Azure accepts only public addresses (--strict-azure)`,
              'use a public address, or validate without --strict-azure for a self-hosted runtime',
            );
          }
          if (e.type === 'azureEndpoints') {
            r.report(
              'TARGET_IP_NOT_EXTERNAL',
              `${e.path}.target`,
              'Azure allows IP literal targets only on external endpoints (--strict-azure)',
              "give the resource's DNS name",
            );
          }
        }
        const key = `${t.ip.family}:${t.ip.value}`;
        const other = ips.get(key);
        if (other !== undefined) {
          r.report(
            'TARGET_IP_DUPLICATE',
            `${e.path}.target`,
            `target ${target} is also the target of endpoint "${other}"; no two endpoints of a profile share a target IP`,
            'remove one of the endpoints, or give them different addresses',
          );
        } else ips.set(key, String(ep.name));
      }
      if (!multi) {
        if (firstKind === undefined) firstKind = { kind: t.kind, name: String(ep.name) };
        else if (firstKind.kind !== t.kind) {
          r.report(
            'TARGET_FAMILY_MIXED',
            `${e.path}.target`,
            `target ${target} is ${KIND_NAME[t.kind]} but endpoint "${firstKind.name}" has an ${KIND_NAME[firstKind.kind]} ` +
              `target; a profile does not mix FQDN, IPv4 and IPv6 targets (only MultiValue mixes IPv4 and IPv6)`,
            'put endpoints of each addressing type in their own (nested) profile',
          );
        }
      }
      if (allowed !== undefined && !allowed.has(RECORD_TYPE[t.kind])) {
        r.report(
          'RECORD_TYPE_NOT_ALLOWED',
          `${e.path}.target`,
          `target ${target} is ${RECORD_TYPE[t.kind]}, which allowedEndpointRecordTypes (${(rts as unknown[]).map(String).join(', ')}) does not list`,
          `add ${RECORD_TYPE[t.kind]} to allowedEndpointRecordTypes or change the target`,
        );
      }
    }
  }
}

function checkAzureId(ctx: Ctx, id: string, path: string): ArmId | undefined {
  const arm = parseArmId(id);
  if (arm === undefined) {
    ctx.r.report(
      'AZURE_RESOURCE_ID',
      path,
      `targetResourceId ${show(id)} is not an ARM resource id (/subscriptions/{id}/resourceGroups/{group}/providers/{namespace}/{type}/{name})`,
      'copy the resource id from `az resource show --query id`',
    );
    return undefined;
  }
  if (!ALLOWED_LOWER.has(arm.resourceType.toLowerCase())) {
    ctx.r.report(
      'AZURE_RESOURCE_TYPE',
      path,
      `resource type ${arm.resourceType} cannot be an Azure endpoint; allowed: ${AZURE_RESOURCE_TYPES.join(', ')}`,
      "for other resources use an external endpoint with the resource's DNS name or IP",
    );
  }
  if (ctx.strictAzure && !GUID.test(arm.subscription)) {
    ctx.r.report(
      'AZURE_SUBSCRIPTION_ID',
      path,
      `subscription "${arm.subscription}" is not a GUID (--strict-azure)`,
      'use the subscription id, e.g. 00000000-0000-0000-0000-000000000000',
    );
  }
  return arm;
}
