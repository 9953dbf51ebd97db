import { MemoryStore } from '../../src/testing/memory-store';
import { describeStoreConformance } from '../support/store-conformance';

describeStoreConformance('memory', () => new MemoryStore());
