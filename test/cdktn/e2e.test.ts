/**
 * examples/cdktn end to end with the real cdktn-cli 0.24 (CDK Terrain) and terraform against a real
 * `tmkit serve` (the suite: test/support/cdk-e2e.ts).
 */
import { cdkE2eSuite } from '../support/cdk-e2e';

/** cdktn-cli 0.24's `engines`: Node >= 22.19. */
const NEEDS = [22, 19];

const newEnough = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > NEEDS[0]! || (major === NEEDS[0] && minor >= NEEDS[1]!);
};

cdkE2eSuite({
  name: 'cdktn',
  script: 'node_modules/cdktn-cli/bin/cdktn',
  /**
   * The CLI runs on this Node when it is new enough, else on TMKIT_NODE24 (.ci/run installs Node 24 with
   * scripts/install-node.sh and exports it); the app it synthesizes, the provider and tmkit run on the Node on
   * PATH either way.
   */
  node() {
    if (newEnough(process.versions.node)) return process.execPath;
    const other = process.env.TMKIT_NODE24;
    if (!other)
      throw new Error(
        `cdktn-cli 0.24 needs Node >= ${NEEDS.join('.')} and this is Node ${process.versions.node}: set TMKIT_NODE24 to a newer Node binary for the CLI (bash scripts/install-node.sh 24.22.3 prints its directory)`,
      );
    return other;
  },
});
