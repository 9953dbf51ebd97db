/** A gRPC client for pulumirpc.ResourceProvider (the stubs @pulumi/pulumi ships), promisified, for tests. */
import * as grpc from '@grpc/grpc-js';
import { ResourceProviderClient } from '@pulumi/pulumi/proto/provider_grpc_pb';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';

export type Unary<Req, Resp> = (req: Req) => Promise<Resp>;

export interface CallFailure {
  code: grpc.status;
  details: string;
}

export function connect(port: number): {
  client: ResourceProviderClient;
  call: <Req, Resp>(method: string, req: Req) => Promise<Resp>;
  close: () => void;
} {
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = <Req, Resp>(method: string, req: Req): Promise<Resp> =>
    new Promise((resolve, reject) => {
      const fn = (client as unknown as Record<string, (r: Req, cb: (err: grpc.ServiceError | null, resp: Resp) => void) => void>)[method]!;
      fn.call(client, req, (err, resp) => (err ? reject(err) : resolve(resp)));
    });
  return { client, call, close: () => client.close() };
}

/** The gRPC failure of a call that must fail. */
export async function failure(p: Promise<unknown>): Promise<CallFailure> {
  try {
    await p;
  } catch (err) {
    const e = err as grpc.ServiceError;
    return { code: e.code, details: e.details };
  }
  throw new Error('the call succeeded, but it was expected to fail');
}

export function struct(js: Record<string, unknown>): Struct {
  return Struct.fromJavaScript(js as Parameters<typeof Struct.fromJavaScript>[0]);
}
