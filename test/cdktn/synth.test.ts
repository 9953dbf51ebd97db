/** tmkit/cdktn in process with the real cdktn 0.24, CDK Terrain (the suite: test/support/cdk-synth.ts). */
import * as cdktn from 'cdktn';
import * as tmkit from '../../src/cdktn';
import { synthSuite } from '../support/cdk-synth';

synthSuite('cdktn', cdktn, tmkit);
