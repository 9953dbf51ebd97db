/** tmkit/cdktf in process with the real cdktf 0.21 (the suite: test/support/cdk-synth.ts). */
import * as cdktf from 'cdktf';
import * as tmkit from '../../src/cdktf';
import { synthSuite } from '../support/cdk-synth';

synthSuite('cdktf', cdktf, tmkit);
