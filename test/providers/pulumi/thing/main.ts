/** Entry of the test-only `pulumi-resource-tmkittest` plugin (the launcher runs it through swc). */
import { serve } from '../../../../providers/pulumi/src/server';
import { thingProvider } from './provider';

serve(thingProvider(), { args: process.argv.slice(2) }).catch((err: unknown) => {
  process.stderr.write(`pulumi-resource-tmkittest: cannot start: ${String(err)}\n`);
  process.exitCode = 1;
});
