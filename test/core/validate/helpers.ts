/** Small builders for validation tests: raw (input-shaped) documents. */
type Obj = Record<string, unknown>;

export const ext = (name: string, target: string, extra: Obj = {}): Obj => ({ name, type: 'externalEndpoints', target, ...extra });
export const nested = (name: string, child: string, extra: Obj = {}): Obj => ({
  name,
  type: 'nestedEndpoints',
  targetResourceId: child,
  ...extra,
});
export const azure = (name: string, resource: string, extra: Obj = {}): Obj => ({
  name,
  type: 'azureEndpoints',
  targetResourceId: resource,
  ...extra,
});

export const SUB = '00000000-0000-0000-0000-000000000000';
export const webApp = (app: string, sub = SUB): string => `/subscriptions/${sub}/resourceGroups/rg/providers/Microsoft.Web/sites/${app}`;

export const profile = (name: string, method: string, endpoints: Obj[], extra: Obj = {}): Obj => ({
  name,
  trafficRoutingMethod: method,
  dnsConfig: { relativeName: name },
  endpoints,
  ...extra,
});

export const doc = (...profiles: Obj[]): Obj => ({ apiVersion: 'tmkit/v1', profiles });

/** A one-profile document named `p`. */
export const one = (method: string, endpoints: Obj[], extra: Obj = {}): Obj => doc(profile('p', method, endpoints, extra));

/** A Priority child profile with one FQDN endpoint. */
export const leaf = (name: string, extra: Obj = {}): Obj => profile(name, 'Priority', [ext('a', `${name}.example.com`)], extra);

/**
 * A Geographic profile `p` whose endpoints are nested (children c0…cN, each a valid leaf), with the given
 * geoMapping per endpoint.
 */
export function geoDoc(mappings: string[][], extraEndpoint: (i: number) => Obj = () => ({})): Obj {
  return doc(
    profile(
      'p',
      'Geographic',
      mappings.map((m, i) => nested(`e${i}`, `c${i}`, { geoMapping: m, ...extraEndpoint(i) })),
    ),
    ...mappings.map((_, i) => leaf(`c${i}`)),
  );
}

/** A Subnet profile `p`; each entry is one endpoint's subnets (an empty list makes it the fallback). */
export function subnetDoc(subnets: Obj[][]): Obj {
  return one(
    'Subnet',
    subnets.map((s, i) => ext(`e${i}`, `e${i}.example.com`, { subnets: s })),
  );
}

export const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
