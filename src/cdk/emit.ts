/**
 * The tmkit constructs (Profile, ExternalEndpoint, AzureEndpoint, NestedEndpoint from src/constructs) inside a
 * TerraformStack of cdktf or cdktn: each profile becomes a tmkit_profile and each endpoint its tmkit_*_endpoint, with
 * Terraform references between them (`profile_id = tmkit_profile.<p>.id`, a nested endpoint's
 * `target_resource_id = tmkit_profile.<child>.id`). `TmkitProvider` registers this as an aspect on its stack,
 * so placing the constructs in the stack is enough; resource addresses are `tmkit_profile.<profile name>` and
 * `tmkit_<kind>_endpoint.<profile>_<endpoint>` (non-identifier characters as `_`).
 *
 * As in the document a construct tree synthesizes to, an endpoint without a priority gets its position in
 * the profile (1, 2, …) when none of the profile's endpoints has one, so the Terraform plan and `tmkit synth`
 * agree whatever order Terraform creates them in.
 */
import type { Construct, IConstruct } from 'constructs';
import { findProfiles } from '../constructs/synth';
import { isEndpointNode, type EndpointNode, type ProfileNode } from '../constructs/tree';
import type { EndpointInput, ProfileInput } from '../core/model/types';
import type { AzureEndpointConfig, Bindings, ExternalEndpointConfig, NestedEndpointConfig, ProfileConfig } from './bindings';
import type { CdkLibrary, ResourceBase } from './library';

const EMITTED = Symbol.for('tmkit.cdktf.emitted');
const ident = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^([^A-Za-z_])/, '_$1');

function profileConfig(p: ProfileInput): ProfileConfig {
  const m = p.monitorConfig;
  return {
    name: p.name,
    trafficRoutingMethod: p.trafficRoutingMethod,
    ...(p.profileStatus !== undefined ? { profileStatus: p.profileStatus } : {}),
    ...(p.trafficViewEnrollmentStatus !== undefined ? { trafficViewEnabled: p.trafficViewEnrollmentStatus === 'Enabled' } : {}),
    ...(p.maxReturn !== undefined ? { maxReturn: p.maxReturn } : {}),
    ...(p.tags !== undefined ? { tags: p.tags } : {}),
    dnsConfig: { relativeName: p.dnsConfig.relativeName, ...(p.dnsConfig.ttl !== undefined ? { ttl: p.dnsConfig.ttl } : {}) },
    ...(m !== undefined
      ? {
          monitorConfig: {
            ...(m.protocol !== undefined ? { protocol: m.protocol } : {}),
            ...(m.port !== undefined ? { port: m.port } : {}),
            ...(m.path !== undefined ? { path: m.path } : {}),
            ...(m.intervalInSeconds !== undefined ? { intervalInSeconds: m.intervalInSeconds } : {}),
            ...(m.timeoutInSeconds !== undefined ? { timeoutInSeconds: m.timeoutInSeconds } : {}),
            ...(m.toleratedNumberOfFailures !== undefined ? { toleratedNumberOfFailures: m.toleratedNumberOfFailures } : {}),
            ...(m.expectedStatusCodeRanges?.length
              ? { expectedStatusCodeRanges: m.expectedStatusCodeRanges.map((r) => `${r.min}-${r.max}`) }
              : {}),
            ...(m.customHeaders?.length ? { customHeader: m.customHeaders.map((h) => ({ name: h.name, value: h.value })) } : {}),
            ...(m.checks !== undefined
              ? {
                  check: m.checks.map((c) => ({
                    name: c.name,
                    ...(c.protocol !== undefined ? { protocol: c.protocol } : {}),
                    ...(c.port !== undefined ? { port: c.port } : {}),
                    ...(c.path !== undefined ? { path: c.path } : {}),
                    ...(c.expectedStatusCodeRanges !== undefined
                      ? { expectedStatusCodeRanges: c.expectedStatusCodeRanges.map((r) => `${r.min}-${r.max}`) }
                      : {}),
                    ...(c.mustBeHealthy !== undefined ? { mustBeHealthy: c.mustBeHealthy } : {}),
                    ...(c.monitoringOnly !== undefined ? { monitoringOnly: c.monitoringOnly } : {}),
                  })),
                }
              : {}),
            ...(m.quorum !== undefined ? { quorum: m.quorum } : {}),
          },
        }
      : {}),
    ...(p.failback !== undefined ? { failback: { ...p.failback } } : {}),
    ...(p.performanceLatency !== undefined ? { performanceLatency: { ...p.performanceLatency } } : {}),
  };
}

function endpointCommon(e: EndpointInput, profileId: string): Record<string, unknown> {
  return {
    name: e.name,
    profileId,
    ...(e.weight !== undefined ? { weight: e.weight } : {}),
    ...(e.priority !== undefined ? { priority: e.priority } : {}),
    ...(e.endpointStatus !== undefined ? { enabled: e.endpointStatus === 'Enabled' } : {}),
    ...(e.geoMapping?.length ? { geoMappings: e.geoMapping } : {}),
    ...(e.endpointLocation !== undefined ? { endpointLocation: e.endpointLocation } : {}),
    ...(e.customHeaders?.length ? { customHeader: e.customHeaders.map((h) => ({ name: h.name, value: h.value })) } : {}),
    ...(e.subnets?.length
      ? {
          subnet: e.subnets.map((s) => ({
            first: s.first,
            ...(s.last !== undefined ? { last: s.last } : {}),
            ...(s.scope !== undefined ? { scope: s.scope } : {}),
          })),
        }
      : {}),
  };
}

export interface Emitter {
  /** Emits the tmkit_* resources for the tmkit constructs under `stack` (once; later calls do nothing). */
  emitTmkitResources(stack: Construct): void;
  /** The aspect `TmkitProvider` adds to its stack: emits the resources when the library visits the stack at synth. */
  readonly TmkitResourcesAspect: new (
    stack: Construct,
  ) => { visit(node: IConstruct): void };
}

/** emitTmkitResources and its aspect over `lib` and the bindings made from it. */
export function makeEmitter<L extends CdkLibrary>(lib: L, bindings: Bindings<L>): Emitter {
  const { profile, externalEndpoint, azureEndpoint, nestedEndpoint } = bindings as unknown as Bindings<CdkLibrary>;
  function emitTmkitResources(stack: Construct): void {
    if ((stack as unknown as Record<symbol, boolean>)[EMITTED]) return;
    Object.defineProperty(stack, EMITTED, { value: true });
    const profiles = findProfiles(stack);
    const resources = new Map<ProfileNode, ResourceBase & { readonly id: string }>();
    for (const p of profiles) {
      const input = p.toProfileInput();
      if (input.allowedEndpointRecordTypes !== undefined) {
        lib.Annotations.of(p).addError(
          'allowedEndpointRecordTypes is not supported by the tmkit Terraform provider yet; remove it or deploy this profile with tmkit apply',
        );
      }
      const r = new profile.Profile(p, 'tmkit_profile', profileConfig(input));
      r.overrideLogicalId(ident(input.name));
      resources.set(p, r);
    }
    for (const p of profiles) {
      const parent = resources.get(p)!;
      const children = p.node.children.filter(isEndpointNode) as Array<EndpointNode & { targetProfile?: ProfileNode }>;
      const inputs = children.map((e) => e.toEndpointInput());
      const derive = inputs.every((e) => e.priority === undefined);
      children.forEach((node, i) => {
        const e = derive ? { ...inputs[i]!, priority: i + 1 } : inputs[i]!;
        const common = endpointCommon(e, parent.id);
        const logical = ident(`${p.profileName}_${e.name}`);
        const type = e.type;
        let r: ResourceBase;
        if (type === 'externalEndpoints') {
          r = new externalEndpoint.ExternalEndpoint(node, 'tmkit_endpoint', {
            ...common,
            target: e.target!,
            ...(e.alwaysServe !== undefined ? { alwaysServeEnabled: e.alwaysServe === 'Enabled' } : {}),
          } as ExternalEndpointConfig);
        } else if (type === 'azureEndpoints') {
          r = new azureEndpoint.AzureEndpoint(node, 'tmkit_endpoint', {
            ...common,
            targetResourceId: e.targetResourceId!,
            ...(e.target !== undefined ? { target: e.target } : {}),
            ...(e.alwaysServe !== undefined ? { alwaysServeEnabled: e.alwaysServe === 'Enabled' } : {}),
          } as AzureEndpointConfig);
        } else {
          const child = node.targetProfile ? resources.get(node.targetProfile) : undefined;
          r = new nestedEndpoint.NestedEndpoint(node, 'tmkit_endpoint', {
            ...common,
            targetResourceId: child ? child.id : e.targetResourceId!,
            ...(e.minChildEndpoints !== undefined ? { minimumChildEndpoints: e.minChildEndpoints } : {}),
            ...(e.minChildEndpointsIPv4 !== undefined ? { minimumRequiredChildEndpointsIpv4: e.minChildEndpointsIPv4 } : {}),
            ...(e.minChildEndpointsIPv6 !== undefined ? { minimumRequiredChildEndpointsIpv6: e.minChildEndpointsIPv6 } : {}),
          } as NestedEndpointConfig);
        }
        r.overrideLogicalId(logical);
      });
    }
  }

  class TmkitResourcesAspect {
    constructor(private readonly stack: Construct) {}
    visit(node: IConstruct): void {
      if (node === this.stack) emitTmkitResources(this.stack);
    }
  }
  return { emitTmkitResources, TmkitResourcesAspect };
}
