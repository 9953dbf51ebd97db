/**
 * examples/cdktf end to end with the real cdktf-cli 0.21 and terraform against a real `tmkit serve` (the suite:
 * test/support/cdk-e2e.ts).
 */
import { cdkE2eSuite } from '../support/cdk-e2e';

cdkE2eSuite({
  name: 'cdktf',
  script: 'node_modules/cdktf-cli/bundle/bin/cdktf',
  /**
   * cdktf-cli 0.21 loads @cdktf/node-pty-prebuilt-multiarch, whose prebuilt addons stop at Node 21 (ABI 120),
   * and nothing may compile here: on Node 22+ the CLI dies with "Cannot find module
   * '../build/Release/pty.node'". So in .ci/run's Node 24 pass the CLI runs on the machine's Node 20
   * (TMKIT_NODE20); the app it synthesizes, the provider and tmkit still run on this Node.
   */
  node() {
    const major = Number(process.versions.node.split('.')[0]);
    if (major <= 21) return process.execPath;
    const old = process.env.TMKIT_NODE20;
    if (!old)
      throw new Error(
        `cdktf-cli 0.21 cannot run on Node ${process.versions.node} (its node-pty prebuilds stop at Node 21): set TMKIT_NODE20 to a Node 20 binary for the CLI`,
      );
    return old;
  },
});
