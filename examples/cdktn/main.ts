/**
 * The nested Performance + Weighted scenario of examples/terraform, as a CDK Terrain (cdktn) program with the tmkit
 * constructs: `cdktn deploy --skip-provider-lock` creates the same tmkit_* resources.
 */
import { App, TerraformOutput, TerraformStack } from 'cdktn';
import { NestedEndpoint, Profile } from 'tmkit';
import { TmkitProvider } from 'tmkit/cdktn';

const app = new App();
const stack = new TerraformStack(app, 'traffic');
// server and token default to TMKIT_SERVER and TMKIT_TOKEN; the stack defaults to "terraform".
new TmkitProvider(stack, 'tmkit');

const monitorConfig = { protocol: 'HTTP' as const, port: 80, path: '/health', expectedStatusCodeRanges: [{ min: 200, max: 299 }] };

const eu = new Profile(stack, 'app-eu', { trafficRoutingMethod: 'Weighted', monitorConfig });
eu.addExternalEndpoint('eu-1', { target: '192.0.2.11', weight: 3, alwaysServe: 'Enabled' });
eu.addExternalEndpoint('eu-2', { target: '192.0.2.12', weight: 1, alwaysServe: 'Enabled' });

const us = new Profile(stack, 'app-us', { trafficRoutingMethod: 'Weighted', monitorConfig });
us.addExternalEndpoint('us-1', { target: '198.51.100.21', weight: 1, alwaysServe: 'Enabled' });
us.addExternalEndpoint('us-2', { target: '198.51.100.22', weight: 1, alwaysServe: 'Enabled' });

const top = new Profile(stack, 'app', { trafficRoutingMethod: 'Performance', monitorConfig: { path: '/health' }, tags: { team: 'web' } });
new NestedEndpoint(top, 'eu', { targetProfile: eu, endpointLocation: 'West Europe', minChildEndpoints: 1 });
new NestedEndpoint(top, 'us', { targetProfile: us, endpointLocation: 'East US', minChildEndpoints: 1 });

new TerraformOutput(stack, 'relative_name', { value: top.relativeName });

app.synth();
