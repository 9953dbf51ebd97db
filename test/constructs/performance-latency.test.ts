/** The `performanceLatency` prop of the Profile construct: what it writes into the document, and that it validates. */
import { App, ExternalEndpoint, Profile, synthDocument } from '../../src/constructs';
import { normalize } from '../../src/core/model/normalize';
import { validate } from '../../src/core/validate';

test('performanceLatency is written as given (only the parts set) and normalizes with the defaults for the rest', () => {
  const app = new App();
  const p = new Profile(app, 'web', { trafficRoutingMethod: 'Performance', performanceLatency: { source: 'Measured', toleranceMs: 30 } });
  new ExternalEndpoint(p, 'a', { target: 'a.example.com', endpointLocation: 'westeurope' });
  const doc = synthDocument(app);
  expect(doc.profiles[0]!.performanceLatency).toEqual({ source: 'Measured', toleranceMs: 30 });
  expect(validate(doc)).toEqual([]);
  expect(normalize(doc).profiles[0]!.performanceLatency).toEqual({ source: 'Measured', toleranceMs: 30, minSamples: 5 });
});

test('bad values are refused when the construct is made, naming the prop and the rule', () => {
  const app = new App();
  expect(
    () => new Profile(app, 'web', { trafficRoutingMethod: 'Performance', performanceLatency: { source: 'Measured', minSamples: 0 } }),
  ).toThrow(/performanceLatency\.minSamples/);
  expect(
    () => new Profile(app, 'web2', { trafficRoutingMethod: 'Performance', performanceLatency: { source: 'measured' as never } }),
  ).toThrow(/performanceLatency\.source/);
});
