/**
 * Entry of the `pulumi-resource-tmkit` plugin: serves the tmkit provider and prints its port. Kept to the
 * gRPC layer's imports (no @pulumi/pulumi runtime), so the engine waits as little as possible.
 */
import { serve } from './server';
import { tmkitProvider } from './tmkit';

serve(tmkitProvider(), { args: process.argv.slice(2) }).catch((err: unknown) => {
  process.stderr.write(`pulumi-resource-tmkit: cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
