/** tmkit constructs: declare Traffic Manager profiles as a construct tree (CDK style). */
export * from './app';
export * from './profile';
export * from './endpoints';
export {
  RoutingTest,
  findRoutingTests,
  synthTests,
  TESTS_FILE,
  type RoutingTestProps,
  type RoutingTestAssertions,
} from './routing-test';
export { InvalidPropsError } from './props-check';
export {
  findProfiles,
  formatConstructDiagnostic,
  synthDocument,
  validateConstructs,
  type ConstructDiagnostic,
  type SynthDocumentOptions,
  type ValidateConstructsOptions,
} from './synth';
export { documentScopeOf, markDocumentScope, type DocumentScopeSettings } from './tree';
