/**
 * The tmkit provider functions over the tfplugin6 layer in process (the real CLIs: functions-e2e.test.ts):
 * announced by GetMetadata, GetProviderSchema (where terraform 1.11 and tofu read them) and GetFunctions; called
 * with msgpack arguments as Terraform encodes them; unknown values the answer depends on make it unknown, others
 * do not; Geographic places the client with the country database; errors carry the argument's index.
 */
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { decodeMsgpack, encodeMsgpack } from '../../../providers/terraform/src/codec';
import { Dynamic, UNKNOWN, type Value } from '../../../providers/terraform/src/cty';
import { tmkitProvider } from '../../../providers/terraform/src/main';
import type { Msg } from '../../../providers/terraform/src/proto';
import { shapeOfType } from '../../../providers/terraform/src/schema';
import { providerService } from '../../../providers/terraform/src/server';

const impl: UntypedServiceImplementation = providerService(tmkitProvider);
function call(rpc: string, request: Msg): Promise<Msg> {
  return new Promise((resolve, reject) => {
    (impl[rpc] as (c: ServerUnaryCall<Msg, Msg>, cb: sendUnaryData<Msg>) => void)({ request } as ServerUnaryCall<Msg, Msg>, (err, res) =>
      err ? reject(err) : resolve(res!),
    );
  });
}
const dyn = (v: Value): Msg => ({ msgpack: Buffer.from(encodeMsgpack(v, { kind: 'dynamic' })) });
const str = (v: Value): Msg => ({ msgpack: Buffer.from(encodeMsgpack(v, { kind: 'string' })) });
const result = (res: Msg): Value => {
  if (res.error) throw new Error(`function error: ${JSON.stringify(res.error)}`);
  const v = decodeMsgpack(res.result.msgpack, { kind: 'dynamic' });
  return v instanceof Dynamic ? v.value : v;
};
const number = (res: Msg): Value => decodeMsgpack(res.result.msgpack, shapeOfType('number'));

/** A tmkit_profile as Terraform holds it in a plan of a new profile: blocks as lists, id and fqdn unknown. */
const planned = (over: Record<string, Value> = {}, endpoint: Record<string, Value> = {}) => ({
  id: UNKNOWN,
  fqdn: UNKNOWN,
  name: 'web',
  profile_status: 'Enabled',
  traffic_routing_method: 'Priority',
  traffic_view_enabled: false,
  max_return: null,
  tags: UNKNOWN,
  dns_config: [{ relative_name: 'web', ttl: 30 }],
  monitor_config: [
    { protocol: 'HTTP', port: 80, path: '/', interval_in_seconds: 10, timeout_in_seconds: 5, tolerated_number_of_failures: 2 },
  ],
  failback: [],
  endpoint: [
    { name: 'weu', type: 'ExternalEndpoints', target: '192.0.2.1', priority: 1, weight: 1, enabled: true, ...endpoint },
    { name: 'neu', type: 'ExternalEndpoints', target: '192.0.2.2', priority: 2, weight: 1, enabled: true },
  ],
  ...over,
});

test('announced in GetMetadata, GetProviderSchema and GetFunctions with their signatures', async () => {
  expect((await call('GetMetadata', {})).functions).toEqual([{ name: 'resolve' }, { name: 'worst_case_failover' }]);
  const schema = await call('GetProviderSchema', {});
  const fns = await call('GetFunctions', {});
  expect(fns.functions).toEqual(schema.functions);
  const r = schema.functions.resolve;
  expect(r.parameters.map((p: Msg) => [p.name, p.type.toString(), p.allow_unknown_values])).toEqual([
    ['profile', '"dynamic"', true],
    ['client', '"string"', true],
  ]);
  expect([r.variadic_parameter.name, r.variadic_parameter.type.toString()]).toEqual(['down', '"string"']);
  expect(r.return.type.toString()).toBe('"dynamic"');
  expect(schema.functions.worst_case_failover.return.type.toString()).toBe('"number"');
});

test('resolve: on a planned tmkit_profile (unknown id, fqdn, tags), with endpoints down, and as a tuple of strings', async () => {
  expect(result(await call('CallFunction', { name: 'resolve', arguments: [dyn(planned()), str('81.2.69.142')] }))).toEqual(['weu']);
  expect(result(await call('CallFunction', { name: 'resolve', arguments: [dyn(planned()), str('81.2.69.142'), str('WEU')] }))).toEqual([
    'neu',
  ]);
  const res = await call('CallFunction', { name: 'resolve', arguments: [dyn(planned()), str('198.51.100.0/24')] });
  const v = decodeMsgpack(res.result.msgpack, { kind: 'dynamic' });
  expect(v).toEqual(new Dynamic(['tuple', ['string']], ['weu']));
});

test('a disabled profile answers nothing; endpoints may be tmkit_external_endpoint resources', async () => {
  const call1 = async (p: Value, client = '192.0.2.9') =>
    result(await call('CallFunction', { name: 'resolve', arguments: [dyn(p), str(client)] }));
  expect(await call1(planned({ profile_status: 'Disabled' }))).toEqual([]);
  const resource = (name: string, priority: number) => ({
    id: UNKNOWN,
    profile_id: '/tmkit/stacks/terraform/trafficManagerProfiles/web',
    name,
    target: `192.0.2.${priority}`,
    priority,
    weight: 1,
    enabled: true,
    always_serve_enabled: false,
    endpoint_location: null,
    geo_mappings: null,
    subnet: [],
    custom_header: [],
    timeouts: null,
  });
  expect(await call1(planned({ endpoint: [resource('b', 2), resource('a', 1)] }))).toEqual(['a']);
});

test('an unknown the answer depends on makes it unknown; one it does not read does not', async () => {
  const isUnknown = (res: Msg): boolean => decodeMsgpack(res.result.msgpack, { kind: 'dynamic' }) === UNKNOWN;
  expect(
    isUnknown(await call('CallFunction', { name: 'resolve', arguments: [dyn(planned({}, { target: UNKNOWN })), str('192.0.2.9')] })),
  ).toBe(true);
  expect(isUnknown(await call('CallFunction', { name: 'resolve', arguments: [dyn(UNKNOWN), str('192.0.2.9')] }))).toBe(true);
  expect(isUnknown(await call('CallFunction', { name: 'resolve', arguments: [dyn(planned()), str(UNKNOWN)] }))).toBe(true);
  expect(
    isUnknown(
      await call('CallFunction', {
        name: 'resolve',
        arguments: [dyn(planned({ endpoint: [{ name: UNKNOWN, target: 'x' }] })), str('192.0.2.9')],
      }),
    ),
  ).toBe(true);
  // worst_case_failover reads neither a target nor a weight, but the monitor's interval.
  expect(number(await call('CallFunction', { name: 'worst_case_failover', arguments: [dyn(planned({}, { weight: UNKNOWN }))] }))).toBe(65);
  const interval = await call('CallFunction', {
    name: 'worst_case_failover',
    arguments: [dyn(planned({ monitor_config: [{ interval_in_seconds: UNKNOWN }] }))],
  });
  expect(decodeMsgpack(interval.result.msgpack, shapeOfType('number'))).toBe(UNKNOWN);
});

test('a nested tree: the profile, then its children; leaves as child/endpoint, down by path, failover through the child', async () => {
  const child = planned({
    name: 'child',
    dns_config: [{ relative_name: 'child', ttl: 10 }],
    monitor_config: [{ interval_in_seconds: 30, timeout_in_seconds: 10, tolerated_number_of_failures: 3 }],
    endpoint: [
      { name: 'c1', target: '192.0.2.11', priority: 1 },
      { name: 'c2', target: '192.0.2.12', priority: 2 },
    ],
  });
  const top = planned({
    endpoint: [
      { name: 'kids', type: 'NestedEndpoints', target_resource_id: '/tmkit/stacks/terraform/trafficManagerProfiles/child', priority: 1 },
      { name: 'neu', target: '192.0.2.2', priority: 2 },
    ],
  });
  const tree = [top, child];
  const resolve1 = async (...args: Msg[]) => result(await call('CallFunction', { name: 'resolve', arguments: args }));
  expect(await resolve1(dyn(tree), str('192.0.2.9'))).toEqual(['child/c1']);
  expect(await resolve1(dyn(tree), str('192.0.2.9'), str('child/c1'))).toEqual(['child/c2']);
  expect(await resolve1(dyn(tree), str('192.0.2.9'), str('child/c1'), str('child/c2'))).toEqual(['neu']);
  // The child's probes set the worst case: 30 × (3 + 1) + 10, plus the top profile's TTL 30.
  expect(number(await call('CallFunction', { name: 'worst_case_failover', arguments: [dyn(tree)] }))).toBe(160);
  const bad = await call('CallFunction', {
    name: 'resolve',
    arguments: [dyn([top, { ...child, traffic_routing_method: 'Nope' }]), str('192.0.2.9')],
  });
  expect(bad.error.text).toMatch(/^profile "child" traffic_routing_method: /);
});

test('Geographic: the client placed by the country database (an ECS prefix too)', async () => {
  const geo = planned({
    traffic_routing_method: 'Geographic',
    endpoint: [
      { name: 'eu', target: '192.0.2.1', geo_mappings: ['GEO-EU'] },
      { name: 'world', target: '192.0.2.2', geo_mappings: ['WORLD'] },
    ],
  });
  expect(result(await call('CallFunction', { name: 'resolve', arguments: [dyn(geo), str('2a02:908::/32')] }))).toEqual(['eu']);
  expect(result(await call('CallFunction', { name: 'resolve', arguments: [dyn(geo), str('8.8.8.8')] }))).toEqual(['world']);
});

test('failures name the argument (function_argument) and the rule', async () => {
  const orphan = await call('CallFunction', {
    name: 'resolve',
    arguments: [dyn(planned({}, { type: 'NestedEndpoints', target: null, target_resource_id: 'child' })), str('192.0.2.9')],
  });
  expect(orphan.error).toEqual({
    text: expect.stringMatching(/^endpoint "weu": target_resource_id: .*\[tmkit rule NESTED_/),
    function_argument: 0,
  });
  const bad = await call('CallFunction', { name: 'worst_case_failover', arguments: [dyn(planned({}, { weight: 5000 }))] });
  expect(bad.error.function_argument).toBe(0);
  expect(bad.error.text).toMatch(/^endpoint "weu": weight: .*\[tmkit rule WEIGHT_RANGE\]/);
  const list = await call('CallFunction', { name: 'resolve', arguments: [dyn('web'), str('192.0.2.9')] });
  expect(list.error).toEqual({ text: expect.stringContaining('a tmkit_profile is required'), function_argument: 0 });
  const down = await call('CallFunction', { name: 'resolve', arguments: [dyn(planned()), str('192.0.2.9'), str('neu'), str('nope')] });
  expect(down.error).toEqual({ text: expect.stringContaining('"nope" is not an endpoint of profile web'), function_argument: 3 });
  expect((await call('CallFunction', { name: 'nope', arguments: [] })).error.text).toBe(
    'This provider has no function "nope" (it has resolve, worst_case_failover).',
  );
});
