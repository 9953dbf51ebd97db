/**
 * The tfplugin6 layer (providers/terraform/src/server.ts) in process: the gRPC table is Tfplugin6Server's
 * methods, one per RPC of the .proto, and each answers as Terraform expects (diagnostics, never a gRPC
 * error). The real protocol, with terraform and the bundled provider, is plugin.test.ts and e2e.test.ts.
 */
import type { sendUnaryData, ServerUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { decodeMsgpack, encodeMsgpack } from '../../../providers/terraform/src/codec';
import { serviceDefinition, type Msg } from '../../../providers/terraform/src/proto';
import { provider } from '../../../providers/terraform/src/provider';
import { shapeOfBlock, type Schema } from '../../../providers/terraform/src/schema';
import { providerService, rpcMethods, Tfplugin6Server } from '../../../providers/terraform/src/server';

const schema: Schema = { block: { attributes: { id: { type: 'string', computed: true }, name: { type: 'string', required: true } } } };
const domain = () =>
  provider<null>({
    schema: { block: {} },
    configure: () => null,
    resources: {
      t_thing: {
        schema,
        create: ({ planned }) => ({ ...planned, id: `id-${String(planned.name)}` }),
        read: (state) => state,
        update: ({ planned }) => planned,
        delete: () => undefined,
        import: () => {
          throw new Error('cannot import');
        },
      },
    },
    dataSources: {},
  });

function call(impl: UntypedServiceImplementation, rpc: string, request: Msg): Promise<Msg> {
  return new Promise((resolve, reject) => {
    (impl[rpc] as (c: ServerUnaryCall<Msg, Msg>, cb: sendUnaryData<Msg>) => void)({ request } as ServerUnaryCall<Msg, Msg>, (err, res) =>
      err ? reject(err) : resolve(res!),
    );
  });
}
const value = (v: Record<string, unknown> | null): Msg => ({ msgpack: Buffer.from(encodeMsgpack(v as never, shapeOfBlock(schema.block))) });

test("the gRPC table is Tfplugin6Server's methods, one for every RPC of tfplugin6.Provider", () => {
  const rpcs = Object.keys(serviceDefinition('tfplugin6.Provider')).sort();
  expect(rpcs).toHaveLength(20);
  expect(
    rpcMethods(new Tfplugin6Server(domain()))
      .map((m) => m.rpc)
      .sort(),
  ).toEqual(rpcs);
  expect(Object.keys(providerService(domain())).sort()).toEqual(rpcs);
});

test('each RPC answers through its method: states encoded, failures as diagnostics', async () => {
  const impl = providerService(domain());
  const meta = await call(impl, 'GetMetadata', {});
  expect(meta.resources).toEqual([{ type_name: 't_thing' }]);
  expect(meta.server_capabilities).toEqual({ plan_destroy: true, get_provider_schema_optional: true, move_resource_state: false });

  const configured = await call(impl, 'ConfigureProvider', {
    terraform_version: '1.9.0',
    config: { msgpack: Buffer.from(encodeMsgpack({}, shapeOfBlock({}))) },
  });
  expect(configured).toEqual({ diagnostics: [] });
  const applied = await call(impl, 'ApplyResourceChange', {
    type_name: 't_thing',
    prior_state: null,
    planned_state: value({ name: 'a', id: null }),
    config: value({ name: 'a', id: null }),
  });
  expect(applied.diagnostics).toEqual([]);
  expect(decodeMsgpack(applied.new_state.msgpack, shapeOfBlock(schema.block))).toEqual({ name: 'a', id: 'id-a' });

  const unknown = await call(impl, 'ReadResource', { type_name: 't_nope', current_state: value({ name: 'a', id: 'x' }) });
  expect(unknown.diagnostics[0]).toMatchObject({ severity: 'ERROR', summary: 'Unknown resource type "t_nope"' });

  const threw = await call(impl, 'ImportResourceState', { type_name: 't_thing', id: 'x' });
  expect(threw.diagnostics[0]).toMatchObject({ severity: 'ERROR', summary: 't_thing: cannot import' });

  expect(await call(impl, 'CallFunction', { name: 'f' })).toEqual({ error: { text: 'This provider has no functions (called "f").' } });
  expect(await call(impl, 'StopProvider', {})).toEqual({ Error: '' });
  const moved = await call(impl, 'MoveResourceState', { target_type_name: 't_thing' });
  expect(moved.diagnostics[0].summary).toBe('Moving resources into t_thing is not supported');
});
