/** The `failback` prop of the Profile construct: what it writes into the document, and that the document validates. */
import { App, ExternalEndpoint, Profile, synthDocument } from '../../src/constructs';
import { validate } from '../../src/core/validate';
import { normalize } from '../../src/core/model/normalize';

test("failback is written as given (only the parts set) and normalizes with Azure's defaults for the rest", () => {
  const app = new App();
  const p = new Profile(app, 'web', { trafficRoutingMethod: 'Priority', failback: { mode: 'Manual', holdDownSeconds: 300 } });
  new ExternalEndpoint(p, 'a', { target: 'a.example.com' });
  const doc = synthDocument(app);
  expect(doc.profiles[0]!.failback).toEqual({ mode: 'Manual', holdDownSeconds: 300 });
  expect(validate(doc)).toEqual([]);
  expect(normalize(doc).profiles[0]!.failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 300 });
});

test("without it the document has none (Azure's behaviour)", () => {
  const app = new App();
  const p = new Profile(app, 'web', { trafficRoutingMethod: 'Priority' });
  new ExternalEndpoint(p, 'a', { target: 'a.example.com' });
  expect('failback' in synthDocument(app).profiles[0]!).toBe(false);
  expect('failback' in normalize(synthDocument(app)).profiles[0]!).toBe(false);
});
