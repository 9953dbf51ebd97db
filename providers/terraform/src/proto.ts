/**
 * The protobuf side of the wire: message types from the pre-built JSON descriptor (protobufjs/light, no
 * .proto parsing at start-up) and gRPC method definitions for @grpc/grpc-js with their (de)serializers.
 * Messages are plain objects with the .proto field names (snake_case), int64 as JS numbers, enums as
 * their names, bytes as Buffer.
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { Root, type Type } from 'protobufjs/light';
import descriptor from '../proto/descriptor.json';

/** A decoded or to-be-encoded protobuf message: the .proto field names as keys. */
// biome-ignore lint/suspicious/noExplicitAny: messages are typed at run time by the JSON descriptor (no generated classes); callers read nested fields freely
export type Msg = Record<string, any>;

let root: Root | undefined;
function getRoot(): Root {
  return (root ??= Root.fromJSON(descriptor as Parameters<typeof Root.fromJSON>[0]));
}

const TO_OBJECT = { longs: Number, enums: String, bytes: Buffer, defaults: true, arrays: true, objects: true, oneofs: true } as const;

export function messageType(name: string): Type {
  return getRoot().lookupType(name);
}

export function encodeMessage(type: Type, value: Msg): Buffer {
  return Buffer.from(type.encode(type.fromObject(value)).finish());
}

export function decodeMessage(type: Type, bytes: Uint8Array): Msg {
  return type.toObject(type.decode(bytes), TO_OBJECT);
}

/** The gRPC service definition of `service` (e.g. "tfplugin6.Provider"), methods keyed by their .proto name. */
export function serviceDefinition(service: string): ServiceDefinition {
  const svc = getRoot().lookupService(service);
  const def: Record<string, MethodDefinition<Msg, Msg>> = {};
  for (const m of svc.methodsArray) {
    m.resolve();
    const req = messageType(m.resolvedRequestType!.fullName);
    const res = messageType(m.resolvedResponseType!.fullName);
    def[m.name] = {
      path: `/${service}/${m.name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestSerialize: (v: Msg) => encodeMessage(req, v),
      requestDeserialize: (b: Buffer) => decodeMessage(req, b),
      responseSerialize: (v: Msg) => encodeMessage(res, v),
      responseDeserialize: (b: Buffer) => decodeMessage(res, b),
      originalName: m.name,
    };
  }
  return def;
}
