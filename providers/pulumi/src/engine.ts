/**
 * What the engine gives a provider process: its command-line arguments (the engine's address, the verbosity)
 * and its Log service, which shows a resource's warnings under the resource.
 */
import * as grpc from '@grpc/grpc-js';
import * as engproto from '@pulumi/pulumi/proto/engine_pb';
import { EngineClient } from '@pulumi/pulumi/proto/engine_grpc_pb';

/** Command-line arguments the engine passes: flags (`--logtostderr`, `-v=N`, `--tracing ADDR`), then its address. */
export interface PluginArgs {
  engineAddress: string | undefined;
  verbose: number;
}

export function parsePluginArgs(argv: readonly string[]): PluginArgs {
  let engineAddress: string | undefined;
  let verbose = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--tracing') i++;
    else if (/^-{1,2}v=\d+$/.test(a)) verbose = Number(a.slice(a.indexOf('=') + 1));
    else if (!a.startsWith('-')) engineAddress = a;
  }
  return { engineAddress, verbose };
}

/**
 * Warnings on a resource, through the engine's Log service (the address the engine passed): the CLI shows them
 * under the resource, as its own. Without an engine (tests, a provider started by hand) they go to `log`.
 */
export function engineWarnings(
  address: string | undefined,
  log: (line: string) => void,
): (urn: string, messages: readonly string[]) => Promise<void> {
  let client: InstanceType<typeof EngineClient> | undefined;
  return async (urn, messages) => {
    if (messages.length === 0) return;
    if (address === undefined) {
      for (const m of messages) log(`warning: ${urn}: ${m}`);
      return;
    }
    client ??= new EngineClient(address, grpc.credentials.createInsecure());
    await Promise.all(
      messages.map(
        (m) =>
          new Promise<void>((done) => {
            const req = new engproto.LogRequest().setSeverity(engproto.LogSeverity.WARNING).setMessage(m).setUrn(urn);
            client!.log(req, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (err: grpc.ServiceError | null) => {
              if (err) log(`warning: ${urn}: ${m} (the engine's Log failed: ${err.message})`);
              done();
            });
          }),
      ),
    );
  };
}
