/**
 * One failing and one passing document for every rule in the catalog. The failing document must yield
 * the rule's code at exactly the expected path(s) with the catalog's severity; the passing document (the
 * same document with the problem fixed) must yield no diagnostic at all.
 */
import { RULES, validate, type ValidateOptions } from '../../../src/core/validate';
import { TEST_CA_PEM } from '../../support/test-ca';
import { normalize } from '../../../src/core/model/normalize';
import { azure, doc, ext, geoDoc, leaf, nested, one, profile, range, SUB, subnetDoc, webApp } from './helpers';

type Obj = Record<string, unknown>;
interface Row {
  code: string;
  paths: string[];
  fail: unknown;
  pass: unknown;
  failOpts?: ValidateOptions;
  passOpts?: ValidateOptions;
}

const E = [ext('a', 'a.example.com')];
/** One external endpoint with the endpointLocation Performance needs. */
const PE = [ext('a', 'a.example.com', { endpointLocation: 'westeurope' })];
const AB = [ext('a', 'a.example.com'), ext('b', 'b.example.com')];
const mon = (m: Obj): Obj => one('Priority', E, { monitorConfig: m });
const headers = (n: number): Obj[] => range(n).map((i) => ({ name: `X-H${i}`, value: 'v' }));
const codeRanges = (n: number): Obj[] => range(n).map((i) => ({ min: 200 + i * 10, max: 205 + i * 10 }));
const strict: ValidateOptions = { strictAzure: true };
const mvChild = (name: string, targets: string[]): Obj =>
  profile(
    name,
    'MultiValue',
    targets.map((t, i) => ext(`m${i}`, t)),
  );
const chain = (n: number): Obj =>
  doc(...range(n).map((i) => (i === n - 1 ? leaf(`n${i}`) : profile(`n${i}`, 'Priority', [nested('next', `n${i + 1}`)]))));

const P = 'profiles[p]';
const rows: Row[] = [
  // structure
  { code: 'DOCUMENT_NOT_OBJECT', paths: ['$'], fail: [], pass: one('Priority', E) },
  {
    code: 'INVALID_TYPE',
    paths: [`${P}.dnsConfig.ttl`],
    fail: one('Priority', E, { dnsConfig: { relativeName: 'p', ttl: '30' } }),
    pass: one('Priority', E, { dnsConfig: { relativeName: 'p', ttl: 30 } }),
  },
  {
    code: 'REQUIRED_PROPERTY',
    paths: [`${P}.trafficRoutingMethod`],
    fail: doc({ name: 'p', dnsConfig: { relativeName: 'p' }, endpoints: E }),
    pass: one('Priority', E),
  },
  {
    code: 'UNKNOWN_PROPERTY',
    paths: [`${P}.endpoints[a].prority`],
    fail: one('Priority', [ext('a', 'a.example.com', { prority: 1 })]),
    pass: one('Priority', [ext('a', 'a.example.com', { priority: 1 })]),
  },
  { code: 'API_VERSION', paths: ['apiVersion'], fail: { ...one('Priority', E), apiVersion: 'tmkit/v2' }, pass: one('Priority', E) },
  {
    code: 'STACK_NAME',
    paths: ['stack'],
    fail: { ...one('Priority', E), stack: 'my_stack' },
    pass: { ...one('Priority', E), stack: 'my-stack' },
  },
  // naming
  {
    code: 'PROFILE_NAME',
    paths: ['profiles[-p].name'],
    fail: doc(leaf('-p', { dnsConfig: { relativeName: 'p' } })),
    pass: doc(leaf('p-1', { dnsConfig: { relativeName: 'p' } })),
  },
  {
    code: 'PROFILE_NAME_DUPLICATE',
    paths: ['profiles[P].name'],
    fail: doc(leaf('p'), leaf('P', { dnsConfig: { relativeName: 'q' } })),
    pass: doc(leaf('p'), leaf('q')),
  },
  {
    code: 'ENDPOINT_NAME',
    paths: [`${P}.endpoints[a/b].name`],
    fail: one('Priority', [ext('a/b', 'a.example.com')]),
    pass: one('Priority', [ext('a b', 'a.example.com')]),
  },
  {
    code: 'ENDPOINT_NAME_DUPLICATE',
    paths: [`${P}.endpoints[A].name`],
    fail: one('Priority', [ext('a', 'a.example.com'), ext('A', 'b.example.com')]),
    pass: one('Priority', AB),
  },
  {
    code: 'PROFILES_LIMIT',
    paths: ['profiles'],
    fail: doc(...range(201).map((i) => leaf(`p${i}`))),
    pass: doc(...range(200).map((i) => leaf(`p${i}`))),
    failOpts: strict,
    passOpts: strict,
  },
  // dns
  {
    code: 'RELATIVE_NAME',
    paths: [`${P}.dnsConfig.relativeName`],
    fail: one('Priority', E, { dnsConfig: { relativeName: 'bad_name' } }),
    pass: one('Priority', E, { dnsConfig: { relativeName: 'good-name.contoso' } }),
  },
  {
    code: 'RELATIVE_NAME_DUPLICATE',
    paths: ['profiles[q].dnsConfig.relativeName'],
    fail: doc(leaf('p', { dnsConfig: { relativeName: 'x' } }), leaf('q', { dnsConfig: { relativeName: 'X' } })),
    pass: doc(leaf('p', { dnsConfig: { relativeName: 'x' } }), leaf('q', { dnsConfig: { relativeName: 'x2' } })),
  },
  {
    code: 'TTL_RANGE',
    paths: [`${P}.dnsConfig.ttl`],
    fail: one('Priority', E, { dnsConfig: { relativeName: 'p', ttl: 2147483648 } }),
    pass: one('Priority', E, { dnsConfig: { relativeName: 'p', ttl: 2147483647 } }),
  },
  // profile
  {
    code: 'PROFILE_STATUS',
    paths: [`${P}.profileStatus`],
    fail: one('Priority', E, { profileStatus: 'enabled' }),
    pass: one('Priority', E, { profileStatus: 'Disabled' }),
  },
  { code: 'ROUTING_METHOD', paths: [`${P}.trafficRoutingMethod`], fail: one('RoundRobin', E), pass: one('Weighted', E) },
  {
    code: 'TRAFFIC_VIEW_STATUS',
    paths: [`${P}.trafficViewEnrollmentStatus`],
    fail: one('Priority', E, { trafficViewEnrollmentStatus: 'On' }),
    pass: one('Priority', E, { trafficViewEnrollmentStatus: 'Enabled' }),
  },
  {
    code: 'RECORD_TYPE_INVALID',
    paths: [`${P}.allowedEndpointRecordTypes[1]`],
    fail: one('Priority', E, { allowedEndpointRecordTypes: ['DomainName', 'CNAME'] }),
    pass: one('Priority', E, { allowedEndpointRecordTypes: ['DomainName', 'Any'] }),
  },
  {
    code: 'RECORD_TYPE_NOT_ALLOWED',
    paths: [`${P}.endpoints[a].target`],
    fail: one('Priority', E, { allowedEndpointRecordTypes: ['IPv4Address'] }),
    pass: one('Priority', E, { allowedEndpointRecordTypes: ['DomainName'] }),
  },
  {
    code: 'ENDPOINTS_LIMIT',
    paths: [`${P}.endpoints`],
    fail: one(
      'Priority',
      range(201).map((i) => ext(`e${i}`, `e${i}.example.com`)),
    ),
    pass: one(
      'Priority',
      range(200).map((i) => ext(`e${i}`, `e${i}.example.com`)),
    ),
  },
  // monitor
  { code: 'MONITOR_PROTOCOL', paths: [`${P}.monitorConfig.protocol`], fail: mon({ protocol: 'UDP' }), pass: mon({ protocol: 'HTTPS' }) },
  { code: 'MONITOR_PORT_RANGE', paths: [`${P}.monitorConfig.port`], fail: mon({ port: 65536 }), pass: mon({ port: 65535 }) },
  {
    code: 'MONITOR_PATH_REQUIRED',
    paths: [`${P}.monitorConfig.path`],
    fail: mon({ protocol: 'HTTP', path: '' }),
    pass: mon({ protocol: 'HTTP', path: '/' }),
  },
  {
    code: 'MONITOR_PATH_INVALID',
    paths: [`${P}.monitorConfig.path`],
    fail: mon({ protocol: 'HTTPS', path: 'health' }),
    pass: mon({ protocol: 'HTTPS', path: '/health?x=1' }),
  },
  {
    code: 'MONITOR_PATH_TCP',
    paths: [`${P}.monitorConfig.path`],
    fail: mon({ protocol: 'TCP', port: 22, path: '/' }),
    pass: mon({ protocol: 'TCP', port: 22 }),
  },
  {
    code: 'MONITOR_INTERVAL',
    paths: [`${P}.monitorConfig.intervalInSeconds`],
    fail: mon({ intervalInSeconds: 20 }),
    pass: mon({ intervalInSeconds: 10 }),
  },
  {
    code: 'MONITOR_TIMEOUT_RANGE',
    paths: [`${P}.monitorConfig.timeoutInSeconds`],
    fail: mon({ intervalInSeconds: 10, timeoutInSeconds: 10 }),
    pass: mon({ intervalInSeconds: 10, timeoutInSeconds: 9 }),
  },
  {
    code: 'MONITOR_TIMEOUT_RANGE',
    paths: [`${P}.monitorConfig.timeoutInSeconds`],
    fail: mon({ intervalInSeconds: 30, timeoutInSeconds: 4 }),
    pass: mon({ intervalInSeconds: 30, timeoutInSeconds: 5 }),
  },
  {
    code: 'MONITOR_TOLERATED_FAILURES_RANGE',
    paths: [`${P}.monitorConfig.toleratedNumberOfFailures`],
    fail: mon({ toleratedNumberOfFailures: 10 }),
    pass: mon({ toleratedNumberOfFailures: 0 }),
  },
  {
    code: 'CUSTOM_HEADERS_LIMIT',
    paths: [`${P}.monitorConfig.customHeaders`],
    fail: mon({ customHeaders: headers(9) }),
    pass: mon({ customHeaders: headers(8) }),
  },
  {
    code: 'CUSTOM_HEADERS_LIMIT',
    paths: [`${P}.endpoints[a].customHeaders`],
    fail: one('Priority', [ext('a', 'a.example.com', { customHeaders: headers(9) })]),
    pass: one('Priority', [ext('a', 'a.example.com', { customHeaders: headers(8) })]),
  },
  {
    code: 'CUSTOM_HEADER_NAME',
    paths: [`${P}.monitorConfig.customHeaders[0].name`],
    fail: mon({ customHeaders: [{ name: 'X Bad', value: 'v' }] }),
    pass: mon({ customHeaders: [{ name: 'X-Good', value: 'v' }] }),
  },
  {
    code: 'CUSTOM_HEADER_HOST_WILDCARD',
    paths: [`${P}.monitorConfig.customHeaders[0].value`],
    fail: mon({ customHeaders: [{ name: 'Host', value: '*.contoso.com' }] }),
    pass: mon({ customHeaders: [{ name: 'Host', value: 'www.contoso.com' }] }),
  },
  {
    code: 'CUSTOM_HEADER_HOST_WILDCARD',
    paths: [`${P}.endpoints[a].customHeaders[0].value`],
    fail: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'host', value: '*' }] })]),
    pass: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'host', value: 'a.contoso.com' }] })]),
  },
  {
    code: 'CUSTOM_HEADER_VALUE',
    paths: [`${P}.monitorConfig.customHeaders[0].value`],
    fail: mon({ customHeaders: [{ name: 'X-A', value: 'a\r\nX-Injected: 1' }] }),
    pass: mon({ customHeaders: [{ name: 'X-A', value: 'a b\tc ~' }] }),
  },
  {
    code: 'CUSTOM_HEADER_VALUE',
    paths: [`${P}.monitorConfig.customHeaders[0].value`],
    fail: mon({ customHeaders: [{ name: 'X-A', value: 'nul\u0000' }] }),
    pass: mon({ customHeaders: [{ name: 'X-A', value: 'nul' }] }),
  },
  {
    code: 'CUSTOM_HEADER_VALUE',
    paths: [`${P}.endpoints[a].customHeaders[0].value`],
    fail: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'X-A', value: 'café' }] })]),
    pass: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'X-A', value: 'cafe' }] })]),
  },
  {
    code: 'CUSTOM_HEADER_FORBIDDEN',
    paths: [`${P}.monitorConfig.customHeaders[0].name`],
    fail: mon({ customHeaders: [{ name: 'Transfer-Encoding', value: 'chunked' }] }),
    pass: mon({ customHeaders: [{ name: 'X-Encoding', value: 'chunked' }] }),
  },
  {
    code: 'CUSTOM_HEADER_FORBIDDEN',
    paths: [`${P}.endpoints[a].customHeaders[0].name`],
    fail: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'connection', value: 'keep-alive' }] })]),
    pass: one('Priority', [ext('a', 'a.example.com', { customHeaders: [{ name: 'X-Connection', value: 'x' }] })]),
  },
  {
    code: 'CUSTOM_HEADER_DUPLICATE',
    paths: [`${P}.monitorConfig.customHeaders[1].name`],
    fail: mon({
      customHeaders: [
        { name: 'X-A', value: '1' },
        { name: 'x-a', value: '2' },
      ],
    }),
    pass: mon({
      customHeaders: [
        { name: 'X-A', value: '1' },
        { name: 'X-B', value: '2' },
      ],
    }),
  },
  {
    code: 'CUSTOM_HEADERS_IGNORED',
    paths: [`${P}.monitorConfig.customHeaders`],
    fail: mon({ protocol: 'TCP', port: 22, customHeaders: headers(1) }),
    pass: mon({ protocol: 'HTTP', customHeaders: headers(1) }),
  },
  {
    code: 'STATUS_CODE_RANGES_LIMIT',
    paths: [`${P}.monitorConfig.expectedStatusCodeRanges`],
    fail: mon({ expectedStatusCodeRanges: codeRanges(9) }),
    pass: mon({ expectedStatusCodeRanges: codeRanges(8) }),
  },
  {
    code: 'STATUS_CODE_RANGE',
    paths: [`${P}.monitorConfig.expectedStatusCodeRanges[0]`, `${P}.monitorConfig.expectedStatusCodeRanges[1]`],
    fail: mon({
      expectedStatusCodeRanges: [
        { min: 300, max: 200 },
        { min: 99, max: 1000 },
      ],
    }),
    pass: mon({
      expectedStatusCodeRanges: [
        { min: 200, max: 200 },
        { min: 100, max: 999 },
      ],
    }),
  },
  {
    code: 'STATUS_CODE_RANGES_IGNORED',
    paths: [`${P}.monitorConfig.expectedStatusCodeRanges`],
    fail: mon({ protocol: 'TCP', port: 22, expectedStatusCodeRanges: codeRanges(1) }),
    pass: mon({ protocol: 'HTTPS', expectedStatusCodeRanges: codeRanges(1) }),
  },
  // monitor: tmkit's health extensions (docs/health.md)
  {
    code: 'MONITOR_CERTIFICATE_VALIDATION',
    paths: [`${P}.monitorConfig.certificateValidation`],
    fail: mon({ protocol: 'HTTPS', certificateValidation: 'enabled' }),
    pass: mon({ protocol: 'HTTPS', certificateValidation: 'Enabled' }),
  },
  {
    code: 'MONITOR_CA_CERTIFICATES',
    paths: [`${P}.monitorConfig.caCertificates`],
    fail: mon({
      protocol: 'HTTPS',
      certificateValidation: 'Enabled',
      caCertificates: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    }),
    pass: mon({ protocol: 'HTTPS', certificateValidation: 'Enabled', caCertificates: TEST_CA_PEM }),
  },
  {
    code: 'MONITOR_CERTIFICATE_EXPIRY_WARNING_RANGE',
    paths: [`${P}.monitorConfig.certificateExpiryWarningDays`],
    fail: mon({ protocol: 'HTTPS', certificateValidation: 'Enabled', certificateExpiryWarningDays: 366 }),
    pass: mon({ protocol: 'HTTPS', certificateValidation: 'Enabled', certificateExpiryWarningDays: 0 }),
  },
  {
    code: 'MONITOR_CERTIFICATE_IGNORED',
    paths: [`${P}.monitorConfig.caCertificates`],
    fail: mon({ protocol: 'HTTPS', caCertificates: TEST_CA_PEM }),
    pass: mon({ protocol: 'HTTPS', certificateValidation: 'Enabled', caCertificates: TEST_CA_PEM }),
  },
  {
    code: 'MONITOR_DEGRADED_LATENCY_RANGE',
    paths: [`${P}.monitorConfig.degradedLatencyMs`],
    fail: mon({ degradedLatencyMs: 0.5 }),
    pass: mon({ degradedLatencyMs: 1 }),
  },
  {
    code: 'MONITOR_DEGRADED_LATENCY_IGNORED',
    paths: [`${P}.monitorConfig.degradedLatencyMs`],
    fail: mon({ timeoutInSeconds: 5, degradedLatencyMs: 5000 }),
    pass: mon({ timeoutInSeconds: 5, degradedLatencyMs: 4999 }),
  },
  // composite checks (docs/health.md "Composite checks")
  {
    code: 'MONITOR_CHECKS_COUNT',
    paths: [`${P}.monitorConfig.checks`],
    fail: mon({ checks: range(11).map((i) => ({ name: `c${i}` })) }),
    pass: mon({ checks: range(10).map((i) => ({ name: `c${i}` })) }),
  },
  {
    code: 'MONITOR_CHECK_NAME',
    paths: [`${P}.monitorConfig.checks[login page].name`],
    fail: mon({ checks: [{ name: 'login page', path: '/login' }] }),
    pass: mon({ checks: [{ name: 'login-page', path: '/login' }] }),
  },
  {
    code: 'MONITOR_CHECK_NAME_DUPLICATE',
    paths: [`${P}.monitorConfig.checks[1].name`],
    fail: mon({ checks: [{ name: 'api' }, { name: 'API', path: '/v2' }] }),
    pass: mon({ checks: [{ name: 'api' }, { name: 'api2', path: '/v2' }] }),
  },
  {
    code: 'MONITOR_CHECK_ROLE',
    paths: [`${P}.monitorConfig.checks[db]`],
    fail: mon({ checks: [{ name: 'api' }, { name: 'db', mustBeHealthy: true, monitoringOnly: true }] }),
    pass: mon({ checks: [{ name: 'api' }, { name: 'db', mustBeHealthy: true }] }),
  },
  {
    code: 'MONITOR_CHECKS_NONE_COUNT',
    paths: [`${P}.monitorConfig.checks`],
    fail: mon({ checks: [{ name: 'metrics', monitoringOnly: true }] }),
    pass: mon({ checks: [{ name: 'metrics', monitoringOnly: true }, { name: 'api' }] }),
  },
  {
    code: 'MONITOR_QUORUM_RANGE',
    paths: [`${P}.monitorConfig.quorum`],
    fail: mon({ checks: [{ name: 'a' }, { name: 'b' }, { name: 'db', mustBeHealthy: true }], quorum: 3 }),
    pass: mon({ checks: [{ name: 'a' }, { name: 'b' }, { name: 'db', mustBeHealthy: true }], quorum: 2 }),
  },
  // endpoints
  {
    code: 'ENDPOINT_TYPE',
    paths: [`${P}.endpoints[a].type`],
    fail: one('Priority', [ext('a', 'a.example.com', { type: 'httpEndpoints' })]),
    pass: one('Priority', [ext('a', 'a.example.com', { type: 'Microsoft.Network/TrafficManagerProfiles/ExternalEndpoints' })]),
  },
  {
    code: 'ENDPOINT_STATUS',
    paths: [`${P}.endpoints[a].endpointStatus`],
    fail: one('Priority', [ext('a', 'a.example.com', { endpointStatus: 'On' })]),
    pass: one('Priority', [ext('a', 'a.example.com', { endpointStatus: 'Disabled' })]),
  },
  {
    code: 'ALWAYS_SERVE',
    paths: [`${P}.endpoints[a].alwaysServe`],
    fail: one('Priority', [ext('a', 'a.example.com', { alwaysServe: 'yes' })]),
    pass: one('Priority', [ext('a', 'a.example.com', { alwaysServe: 'Enabled' })]),
  },
  {
    code: 'ALWAYS_SERVE_NESTED',
    paths: [`${P}.endpoints[n].alwaysServe`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c', { alwaysServe: 'Enabled' })]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'c', { alwaysServe: 'Disabled' })]), leaf('c')),
  },
  {
    code: 'ALWAYS_SERVE_DISABLED',
    paths: [`${P}.endpoints[a].alwaysServe`],
    fail: one('Priority', [ext('a', 'a.example.com', { alwaysServe: 'Enabled', endpointStatus: 'Disabled' })]),
    pass: one('Priority', [ext('a', 'a.example.com', { alwaysServe: 'Enabled', endpointStatus: 'Enabled' })]),
  },
  {
    code: 'WEIGHT_RANGE',
    paths: [`${P}.endpoints[a].weight`],
    fail: one('Weighted', [ext('a', 'a.example.com', { weight: 0 })]),
    pass: one('Weighted', [ext('a', 'a.example.com', { weight: 1000 })]),
  },
  {
    code: 'WEIGHT_RANGE',
    paths: [`${P}.endpoints[a].weight`],
    fail: one('Weighted', [ext('a', 'a.example.com', { weight: 1.5 })]),
    pass: one('Weighted', [ext('a', 'a.example.com', { weight: 1 })]),
  },
  {
    code: 'WEIGHT_IGNORED',
    paths: [`${P}.endpoints[a].weight`],
    fail: one('Priority', [ext('a', 'a.example.com', { weight: 5 })]),
    pass: one('Weighted', [ext('a', 'a.example.com', { weight: 5 })]),
  },
  {
    code: 'PRIORITY_RANGE',
    paths: [`${P}.endpoints[a].priority`],
    fail: one('Priority', [ext('a', 'a.example.com', { priority: 1001 })]),
    pass: one('Priority', [ext('a', 'a.example.com', { priority: 1000 })]),
  },
  {
    code: 'PRIORITY_DUPLICATE',
    paths: [`${P}.endpoints[b].priority`],
    fail: one('Priority', [ext('a', 'a.example.com', { priority: 1 }), ext('b', 'b.example.com', { priority: 1 })]),
    pass: one('Priority', [ext('a', 'a.example.com', { priority: 1 }), ext('b', 'b.example.com', { priority: 2 })]),
  },
  {
    code: 'PRIORITY_PARTIAL',
    paths: [`${P}.endpoints`],
    fail: one('Priority', [ext('a', 'a.example.com', { priority: 2 }), ext('b', 'b.example.com')]),
    pass: one('Priority', [ext('a', 'a.example.com', { priority: 2 }), ext('b', 'b.example.com', { priority: 1 })]),
  },
  {
    code: 'PRIORITY_IGNORED',
    paths: [`${P}.endpoints[a].priority`],
    fail: one('Weighted', [ext('a', 'a.example.com', { priority: 2 })]),
    pass: one('Priority', [ext('a', 'a.example.com', { priority: 2 })]),
  },
  {
    code: 'PRIORITY_IGNORED',
    paths: [`${P}.endpoints[b].priority`],
    fail: one('Weighted', [ext('a', 'a.example.com', { priority: 1 }), ext('b', 'b.example.com', { priority: 3 })]),
    pass: one('Weighted', [ext('a', 'a.example.com', { priority: 1, weight: 1 }), ext('b', 'b.example.com', { priority: 2, weight: 1 })]),
  },
  {
    code: 'WEIGHT_IGNORED',
    paths: [`${P}.endpoints[b].weight`],
    fail: one('Priority', [ext('a', 'a.example.com', { weight: 1 }), ext('b', 'b.example.com', { weight: 2 })]),
    pass: one('Priority', [ext('a', 'a.example.com', { weight: 1 }), ext('b', 'b.example.com', { weight: 1 })]),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_RANGE',
    paths: [`${P}.endpoints[n].minChildEndpoints`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 0 })]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 1 })]), leaf('c')),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_RANGE',
    paths: [`${P}.endpoints[n].minChildEndpointsIPv4`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpointsIPv4: -1 })]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpointsIPv4: 0 })]), leaf('c')),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_IGNORED',
    paths: [`${P}.endpoints[a].minChildEndpoints`],
    fail: one('Priority', [ext('a', 'a.example.com', { minChildEndpoints: 1 })]),
    pass: one('Priority', E),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_SUM',
    paths: [`${P}.endpoints[n].minChildEndpoints`],
    fail: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 1, minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 1 })]),
      mvChild('c', ['192.0.2.1', '2001:db8::1']),
    ),
    pass: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 2, minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 1 })]),
      mvChild('c', ['192.0.2.1', '2001:db8::1']),
    ),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_UNREACHABLE',
    paths: [`${P}.endpoints[n].minChildEndpoints`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 2 })]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 1 })]), leaf('c')),
  },
  {
    code: 'MIN_CHILD_ENDPOINTS_UNREACHABLE',
    paths: [`${P}.endpoints[n].minChildEndpointsIPv6`],
    fail: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 3, minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 2 })]),
      mvChild('c', ['192.0.2.1', '192.0.2.2', '2001:db8::1']),
    ),
    pass: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 3, minChildEndpointsIPv4: 2, minChildEndpointsIPv6: 1 })]),
      mvChild('c', ['192.0.2.1', '192.0.2.2', '2001:db8::1']),
    ),
  },
  {
    code: 'ENDPOINT_LOCATION_UNKNOWN',
    paths: [`${P}.endpoints[a].endpointLocation`],
    fail: one('Performance', [ext('a', 'a.example.com', { endpointLocation: 'Mars Central' })]),
    pass: one('Performance', [ext('a', 'a.example.com', { endpointLocation: 'West Europe' })]),
  },
  {
    code: 'ENDPOINT_LOCATION_GLOBAL',
    paths: [`${P}.endpoints[a].endpointLocation`],
    fail: one('Performance', [ext('a', 'a.example.com', { endpointLocation: 'global' })]),
    pass: one('Performance', [ext('a', 'a.example.com', { endpointLocation: 'westeurope' })]),
  },
  {
    code: 'ENDPOINT_LOCATION_REQUIRED',
    paths: [`${P}.endpoints[a].endpointLocation`, `${P}.endpoints[n].endpointLocation`],
    fail: doc(profile('p', 'Performance', [ext('a', 'a.example.com'), nested('n', 'c'), azure('z', webApp('z'))]), leaf('c')),
    pass: doc(
      profile('p', 'Performance', [
        ext('a', 'a.example.com', { endpointLocation: 'eastus' }),
        nested('n', 'c', { endpointLocation: 'westus' }),
        azure('z', webApp('z')),
      ]),
      leaf('c'),
    ),
  },
  // targets
  {
    code: 'TARGET_REQUIRED',
    paths: [`${P}.endpoints[a].target`],
    fail: one('Priority', [{ name: 'a', type: 'externalEndpoints' }]),
    pass: one('Priority', E),
  },
  {
    code: 'TARGET_INVALID',
    paths: [`${P}.endpoints[a].target`, `${P}.endpoints[b].target`, `${P}.endpoints[c].target`, `${P}.endpoints[d].target`],
    fail: one('Priority', [
      ext('a', 'https://a.example.com/'),
      ext('b', 'b.example.com:8080'),
      ext('c', '256.1.1.1'),
      ext('d', '-d.example.com'),
    ]),
    pass: one('Priority', [ext('a', 'a.example.com'), ext('b', 'b.example.com.'), ext('c', 'xn--c-1ga.example.com'), ext('d', 'd')]),
  },
  {
    code: 'TARGET_IGNORED',
    paths: [`${P}.endpoints[n].target`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c', { target: 'c.example.com' })]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'c')]), leaf('c')),
  },
  {
    code: 'TARGET_NOT_PUBLIC',
    paths: [`${P}.endpoints[a].target`, `${P}.endpoints[b].target`, `${P}.endpoints[c].target`],
    fail: one('MultiValue', [ext('a', '10.1.2.3'), ext('b', '2001:db8::1'), ext('c', '127.0.0.1')]),
    failOpts: strict,
    pass: one('MultiValue', [ext('a', '10.1.2.3'), ext('b', '2001:db8::1'), ext('c', '127.0.0.1')]),
  },
  {
    code: 'TARGET_NOT_PUBLIC',
    paths: [`${P}.endpoints[a].target`],
    fail: one('MultiValue', [ext('a', '198.51.100.7')]),
    failOpts: strict,
    pass: one('MultiValue', [ext('a', '20.50.2.1'), ext('b', '2a01:111::1')]),
    passOpts: strict,
  },
  {
    code: 'TARGET_IP_NOT_EXTERNAL',
    paths: [`${P}.endpoints[z].target`],
    fail: one('Priority', [azure('z', webApp('z'), { target: '20.1.2.3' })]),
    failOpts: strict,
    pass: one('Priority', [azure('z', webApp('z'), { target: 'z.azurewebsites.net' })]),
    passOpts: strict,
  },
  {
    code: 'TARGET_FAMILY_MIXED',
    paths: [`${P}.endpoints[b].target`],
    fail: one('Priority', [ext('a', 'a.example.com'), ext('b', '192.0.2.1')]),
    pass: one('Priority', [ext('a', '192.0.2.2'), ext('b', '192.0.2.1')]),
  },
  {
    code: 'TARGET_FAMILY_MIXED',
    paths: [`${P}.endpoints[b].target`],
    fail: one('Weighted', [ext('a', '192.0.2.1'), ext('b', '2001:db8::1')]),
    pass: one('MultiValue', [ext('a', '192.0.2.1'), ext('b', '2001:db8::1')]),
  },
  {
    code: 'TARGET_IP_DUPLICATE',
    paths: [`${P}.endpoints[b].target`],
    fail: one('MultiValue', [ext('a', '2001:db8::1'), ext('b', '2001:DB8:0:0::1')]),
    pass: one('MultiValue', [ext('a', '2001:db8::1'), ext('b', '2001:db8::2')]),
  },
  {
    code: 'TARGET_RESOURCE_ID_REQUIRED',
    paths: [`${P}.endpoints[z].targetResourceId`],
    fail: one('Priority', [{ name: 'z', type: 'azureEndpoints' }]),
    pass: one('Priority', [azure('z', webApp('z'))]),
  },
  {
    code: 'TARGET_RESOURCE_ID_REQUIRED',
    paths: [`${P}.endpoints[n].targetResourceId`],
    fail: one('Priority', [{ name: 'n', type: 'nestedEndpoints' }]),
    pass: doc(profile('p', 'Priority', [nested('n', 'c')]), leaf('c')),
  },
  {
    code: 'TARGET_RESOURCE_ID_NOT_ALLOWED',
    paths: [`${P}.endpoints[a].targetResourceId`],
    fail: one('Priority', [ext('a', 'a.example.com', { targetResourceId: webApp('a') })]),
    pass: one('Priority', E),
  },
  {
    code: 'AZURE_RESOURCE_ID',
    paths: [`${P}.endpoints[z].targetResourceId`, `${P}.endpoints[y].targetResourceId`],
    fail: one('Priority', [azure('z', 'my-web-app'), azure('y', `/subscriptions/${SUB}/resourceGroups//providers/Microsoft.Web/sites/y`)]),
    pass: one('Priority', [
      azure('z', webApp('z')),
      azure('y', `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.web/sites/y/slots/staging`),
    ]),
  },
  {
    code: 'AZURE_RESOURCE_TYPE',
    paths: [`${P}.endpoints[z].targetResourceId`],
    fail: one('Priority', [azure('z', `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/z`)]),
    pass: one('Priority', [
      azure('z', `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/z`),
      azure('c', `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Compute/cloudServices/c`),
      azure('d', `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.ClassicCompute/domainNames/d`),
    ]),
  },
  {
    code: 'AZURE_WEBAPP_SAME_REGION',
    paths: [`${P}.endpoints[y].targetResourceId`],
    fail: one('Priority', [
      azure('z', webApp('z'), { endpointLocation: 'westeurope' }),
      azure('y', webApp('y'), { endpointLocation: 'westeurope' }),
    ]),
    failOpts: strict,
    pass: one('Priority', [
      azure('z', webApp('z'), { endpointLocation: 'westeurope' }),
      azure('y', webApp('y'), { endpointLocation: 'northeurope' }),
    ]),
    passOpts: strict,
  },
  {
    code: 'AZURE_SUBSCRIPTION_ID',
    paths: [`${P}.endpoints[z].targetResourceId`],
    fail: one('Priority', [azure('z', webApp('z', 'sub'))]),
    failOpts: strict,
    pass: one('Priority', [azure('z', webApp('z', 'sub'))]),
  },
  // geo
  {
    code: 'GEO_CODE_UNKNOWN',
    paths: [`${P}.endpoints[e0].geoMapping[1]`, `${P}.endpoints[e1].geoMapping[0]`],
    fail: geoDoc([['WORLD', 'XX'], ['de']]),
    pass: geoDoc([['WORLD'], ['DE']]),
  },
  {
    code: 'GEO_CODE_DUPLICATE',
    paths: [`${P}.endpoints[e2].geoMapping[1]`],
    fail: geoDoc([['WORLD'], ['DE'], ['FR', 'DE']]),
    pass: geoDoc([['WORLD'], ['DE'], ['FR']]),
  },
  {
    code: 'GEO_CODE_DUPLICATE',
    paths: [`${P}.endpoints[e1].geoMapping[0]`],
    fail: geoDoc([['WORLD'], ['WORLD']]),
    pass: geoDoc([['WORLD'], ['GEO-EU', 'US-CA']]),
  },
  {
    code: 'GEO_CODE_REPEATED',
    paths: [`${P}.endpoints[e1].geoMapping[2]`],
    fail: geoDoc([['WORLD'], ['DE', 'AT', 'DE']]),
    pass: geoDoc([['WORLD'], ['DE', 'AT']]),
  },
  {
    code: 'GEO_CODE_REDUNDANT',
    paths: [`${P}.endpoints[e1].geoMapping[1]`, `${P}.endpoints[e1].geoMapping[2]`],
    fail: geoDoc([['WORLD'], ['GEO-NA', 'US', 'US-CA']]),
    pass: geoDoc([['WORLD'], ['US'], ['GEO-NA'], ['US-CA']]),
  },
  {
    code: 'GEO_MAPPING_REQUIRED',
    paths: [`${P}.endpoints[e1].geoMapping`],
    fail: geoDoc([['WORLD'], []]),
    pass: geoDoc([['WORLD'], ['GEO-AS']]),
  },
  {
    code: 'GEO_MAPPING_IGNORED',
    paths: [`${P}.endpoints[a].geoMapping`],
    fail: one('Priority', [ext('a', 'a.example.com', { geoMapping: ['WORLD'] })]),
    pass: one('Priority', [ext('a', 'a.example.com', { geoMapping: [] })]),
  },
  {
    code: 'GEO_WORLD_MISSING',
    paths: [`${P}.endpoints`],
    fail: geoDoc([['GEO-EU'], ['GEO-NA']]),
    pass: geoDoc([['GEO-EU'], ['GEO-NA'], ['WORLD']]),
  },
  {
    code: 'GEO_ENDPOINT_NOT_NESTED',
    paths: [`${P}.endpoints[x]`],
    fail: one('Geographic', [ext('x', 'x.example.com', { geoMapping: ['WORLD'] })]),
    pass: geoDoc([['WORLD']]),
  },
  // subnets
  {
    code: 'SUBNET_ADDRESS',
    paths: [`${P}.endpoints[e0].subnets[0].first`, `${P}.endpoints[e0].subnets[1].last`],
    fail: subnetDoc([
      [
        { first: '10.0.0.x', scope: 24 },
        { first: '10.1.0.0', last: 'ten' },
      ],
      [],
    ]),
    pass: subnetDoc([
      [
        { first: '10.0.0.0', scope: 24 },
        { first: '10.1.0.0', last: '10.1.0.10' },
      ],
      [],
    ]),
  },
  {
    code: 'SUBNET_SCOPE_RANGE',
    paths: [`${P}.endpoints[e0].subnets[0].scope`, `${P}.endpoints[e0].subnets[1].scope`],
    fail: subnetDoc([
      [
        { first: '10.0.0.0', scope: 33 },
        { first: '2001:db8::', scope: 129 },
      ],
      [],
    ]),
    pass: subnetDoc([
      [
        { first: '10.0.0.0', scope: 32 },
        { first: '2001:db8::', scope: 128 },
      ],
      [],
    ]),
  },
  {
    code: 'SUBNET_NOT_NETWORK_ADDRESS',
    paths: [`${P}.endpoints[e0].subnets[0].first`, `${P}.endpoints[e0].subnets[1].first`],
    fail: subnetDoc([
      [
        { first: '10.0.0.1', scope: 24 },
        { first: '2001:db8::1', scope: 64 },
      ],
      [],
    ]),
    pass: subnetDoc([
      [
        { first: '10.0.0.0', scope: 24 },
        { first: '2001:db8::', scope: 64 },
      ],
      [],
    ]),
  },
  {
    code: 'SUBNET_LAST_WITH_SCOPE',
    paths: [`${P}.endpoints[e0].subnets[0]`],
    fail: subnetDoc([[{ first: '10.0.0.0', last: '10.0.0.255', scope: 24 }], []]),
    pass: subnetDoc([[{ first: '10.0.0.0', last: '10.0.0.255' }], []]),
  },
  {
    code: 'SUBNET_FAMILY_MISMATCH',
    paths: [`${P}.endpoints[e0].subnets[0].last`],
    fail: subnetDoc([[{ first: '10.0.0.0', last: '::1' }], []]),
    pass: subnetDoc([[{ first: '::1', last: '::2' }], []]),
  },
  {
    code: 'SUBNET_RANGE_ORDER',
    paths: [`${P}.endpoints[e0].subnets[0]`],
    fail: subnetDoc([[{ first: '10.0.0.9', last: '10.0.0.1' }], []]),
    pass: subnetDoc([[{ first: '10.0.0.1', last: '10.0.0.9' }], []]),
  },
  {
    code: 'SUBNET_OVERLAP',
    paths: [`${P}.endpoints[e1].subnets[0]`],
    fail: subnetDoc([[{ first: '10.0.0.0', scope: 16 }], [{ first: '10.0.255.255' }], []]),
    pass: subnetDoc([[{ first: '10.0.0.0', scope: 16 }], [{ first: '10.1.0.0' }], []]),
  },
  {
    code: 'SUBNET_OVERLAP',
    paths: [`${P}.endpoints[e0].subnets[0]`],
    fail: subnetDoc([[{ first: '2001:db8::5', last: '2001:db8::9' }], [{ first: '2001:db8::', scope: 125 }], []]),
    pass: subnetDoc([[{ first: '2001:db8::8', last: '2001:db8::9' }], [{ first: '2001:db8::', scope: 125 }], []]),
  },
  {
    code: 'SUBNET_FALLBACK_MULTIPLE',
    paths: [`${P}.endpoints[e2].subnets`],
    fail: subnetDoc([[{ first: '10.0.0.0', scope: 8 }], [], []]),
    pass: subnetDoc([[{ first: '10.0.0.0', scope: 8 }], [{ first: '11.0.0.0', scope: 8 }], []]),
  },
  {
    code: 'SUBNET_FALLBACK_MISSING',
    paths: [`${P}.endpoints`],
    fail: subnetDoc([[{ first: '10.0.0.0', scope: 8 }]]),
    pass: subnetDoc([[{ first: '10.0.0.0', scope: 8 }], []]),
  },
  {
    code: 'SUBNETS_IGNORED',
    paths: [`${P}.endpoints[a].subnets`],
    fail: one('Priority', [ext('a', 'a.example.com', { subnets: [{ first: '10.0.0.0', scope: 8 }] })]),
    pass: one('Performance', [ext('a', 'a.example.com', { subnets: [{ first: '10.0.0.0', scope: 8 }], endpointLocation: 'westus' })]),
  },
  // multivalue
  {
    code: 'MAX_RETURN_RANGE',
    paths: [`${P}.maxReturn`],
    fail: one('MultiValue', [ext('a', '192.0.2.1')], { maxReturn: 9 }),
    pass: one('MultiValue', [ext('a', '192.0.2.1')], { maxReturn: 8 }),
  },
  { code: 'MAX_RETURN_IGNORED', paths: [`${P}.maxReturn`], fail: one('Priority', E, { maxReturn: 2 }), pass: one('Priority', E) },
  {
    code: 'MULTIVALUE_ENDPOINT_TYPE',
    paths: [`${P}.endpoints[z].type`],
    fail: one('MultiValue', [ext('a', '192.0.2.1'), azure('z', webApp('z'))]),
    pass: one('MultiValue', [ext('a', '192.0.2.1'), ext('z', '192.0.2.2')]),
  },
  {
    code: 'MULTIVALUE_TARGET',
    paths: [`${P}.endpoints[b].target`],
    fail: one('MultiValue', [ext('a', '192.0.2.1'), ext('b', 'b.example.com')]),
    pass: one('MultiValue', [ext('a', '192.0.2.1'), ext('b', '2001:db8::b')]),
  },
  // nesting
  {
    code: 'NESTED_TARGET_NOT_FOUND',
    paths: [`${P}.endpoints[n].targetResourceId`],
    fail: doc(profile('p', 'Priority', [nested('n', 'missing')]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('n', 'C')]), leaf('c')),
  },
  {
    code: 'NESTED_TARGET_INVALID',
    paths: [`${P}.endpoints[n].targetResourceId`],
    fail: doc(profile('p', 'Priority', [nested('n', webApp('c'))]), leaf('c')),
    pass: doc(
      profile('p', 'Priority', [
        nested('n', `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/c`),
      ]),
      leaf('c'),
    ),
  },
  {
    code: 'NESTING_CYCLE',
    paths: ['profiles[a].endpoints[n].targetResourceId', 'profiles[b].endpoints[n].targetResourceId'],
    fail: doc(profile('a', 'Priority', [nested('n', 'b')]), profile('b', 'Priority', [nested('n', 'a')])),
    pass: doc(profile('a', 'Priority', [nested('n', 'b')]), leaf('b')),
  },
  {
    code: 'NESTING_CYCLE',
    paths: [`${P}.endpoints[self].targetResourceId`],
    fail: doc(profile('p', 'Priority', [ext('a', 'a.example.com'), nested('self', 'p')])),
    pass: doc(profile('p', 'Priority', [ext('a', 'a.example.com')])),
  },
  { code: 'NESTING_DEPTH', paths: ['profiles[n0].endpoints[next].targetResourceId'], fail: chain(11), pass: chain(10) },
  {
    code: 'NESTED_MULTIVALUE_PARENT',
    paths: [`${P}.endpoints[n]`],
    fail: doc(profile('p', 'MultiValue', [ext('a', '192.0.2.1'), nested('n', 'c')]), leaf('c')),
    pass: doc(profile('p', 'Priority', [nested('a', 'd'), nested('n', 'c')]), leaf('c'), leaf('d')),
  },
  {
    code: 'NESTED_MULTIVALUE_CHILD',
    paths: [`${P}.endpoints[n].targetResourceId`],
    fail: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 0 })]),
      mvChild('c', ['192.0.2.1', '192.0.2.2']),
    ),
    pass: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 0 })]),
      mvChild('c', ['192.0.2.1', '2001:db8::2']),
    ),
  },
  {
    code: 'NESTED_MULTIVALUE_MIN_CHILD',
    paths: [`${P}.endpoints[n]`],
    fail: doc(profile('p', 'Priority', [nested('n', 'c')]), mvChild('c', ['192.0.2.1', '2001:db8::2'])),
    pass: doc(
      profile('p', 'Priority', [nested('n', 'c', { minChildEndpoints: 2, minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 1 })]),
      mvChild('c', ['192.0.2.1', '2001:db8::2']),
    ),
  },
  // failback (a tmkit extension)
  {
    code: 'FAILBACK_MODE',
    paths: [`${P}.failback.mode`],
    fail: one('Priority', E, { failback: { mode: 'manual' } }),
    pass: one('Priority', E, { failback: { mode: 'Manual' } }),
  },
  {
    code: 'FAILBACK_SUCCESSES_RANGE',
    paths: [`${P}.failback.successesToRecover`],
    fail: one('Priority', E, { failback: { successesToRecover: 11 } }),
    pass: one('Priority', E, { failback: { successesToRecover: 10 } }),
  },
  {
    code: 'FAILBACK_HOLD_DOWN_RANGE',
    paths: [`${P}.failback.holdDownSeconds`],
    fail: one('Priority', E, { failback: { holdDownSeconds: 3601 } }),
    pass: one('Priority', E, { failback: { holdDownSeconds: 3600 } }),
  },
  // performanceLatency (a tmkit extension)
  {
    code: 'PERF_LATENCY_METHOD',
    paths: [`${P}.performanceLatency`],
    fail: one('Priority', E, { performanceLatency: { source: 'Measured' } }),
    pass: one('Priority', E),
  },
  {
    code: 'PERF_LATENCY_SOURCE',
    paths: [`${P}.performanceLatency.source`],
    fail: one('Performance', PE, { performanceLatency: { source: 'measured' } }),
    pass: one('Performance', PE, { performanceLatency: { source: 'Measured' } }),
  },
  {
    code: 'PERF_LATENCY_TOLERANCE_RANGE',
    paths: [`${P}.performanceLatency.toleranceMs`],
    fail: one('Performance', PE, { performanceLatency: { toleranceMs: 1001 } }),
    pass: one('Performance', PE, { performanceLatency: { toleranceMs: 1000 } }),
  },
  {
    code: 'PERF_LATENCY_MIN_SAMPLES_RANGE',
    paths: [`${P}.performanceLatency.minSamples`],
    fail: one('Performance', PE, { performanceLatency: { minSamples: 0.5 } }),
    pass: one('Performance', PE, { performanceLatency: { minSamples: 1 } }),
  },
];

describe.each(rows.map((r, i) => [`${r.code} #${i}`, r] as const))('%s', (_name, row) => {
  test('the failing document reports the rule at the expected paths', () => {
    const diags = validate(row.fail, row.failOpts);
    const hits = diags.filter((d) => d.code === row.code);
    expect(hits.map((d) => d.path).sort()).toEqual([...row.paths].sort());
    for (const h of hits) {
      expect(h.severity).toBe(RULES[row.code as keyof typeof RULES].severity);
      expect(h.message.length).toBeGreaterThan(10);
      expect(h.hint).toBeTruthy();
    }
  });
  test('the fixed document is clean', () => {
    expect(validate(row.pass, row.passOpts)).toEqual([]);
  });
});

test('every rule in the catalog has a row (except the internal-error safety net)', () => {
  const covered = new Set(rows.map((r) => r.code));
  const missing = Object.keys(RULES).filter((c) => c !== 'INTERNAL_ERROR' && !covered.has(c));
  expect(missing).toEqual([]);
});

test('normalize() of every passing document is itself a completely clean document', () => {
  for (const row of rows) {
    if (row.code === 'DOCUMENT_NOT_OBJECT' || row.code === 'UNKNOWN_PROPERTY') continue;
    const normalized = normalize(row.pass as never);
    // Normalizing makes every default explicit (weight 1, derived priorities, …): still no diagnostic.
    expect({ code: row.code, diagnostics: validate(normalized, row.passOpts) }).toEqual({ code: row.code, diagnostics: [] });
  }
});

describe('did-you-mean for enum values (issue 16 item 8)', () => {
  test.each([
    ['trafficRoutingMethod', one('Performace', E), `${P}.trafficRoutingMethod`, 'did you mean "Performance"?'],
    ['trafficRoutingMethod, case only', one('weighted', E), `${P}.trafficRoutingMethod`, 'write "Weighted" (values are case-sensitive)'],
    [
      'monitorConfig.protocol',
      one('Priority', E, { monitorConfig: { protocol: 'HTPS' } }),
      `${P}.monitorConfig.protocol`,
      'did you mean "HTTPS"?',
    ],
    ['profileStatus', one('Priority', E, { profileStatus: 'Enabeld' }), `${P}.profileStatus`, 'did you mean "Enabled"?'],
    [
      'endpointStatus',
      one('Priority', [ext('a', 'a.example.com', { endpointStatus: 'Disable' })]),
      `${P}.endpoints[a].endpointStatus`,
      'did you mean "Disabled"?',
    ],
    [
      'endpoint type',
      one('Priority', [{ name: 'a', type: 'externalEndpoint', target: 'a.example.com' }]),
      `${P}.endpoints[a].type`,
      'did you mean "externalEndpoints"?',
    ],
  ])('%s', (_what, input, path, hint) => {
    const d = validate(input).find((x) => x.path === path);
    expect(d?.hint).toContain(hint);
  });

  test('a value far from every allowed one gets the list, not a guess', () => {
    const d = validate(one('Fastest', E)).find((x) => x.path === `${P}.trafficRoutingMethod`);
    expect(d?.hint).toBe('use one of Performance, Priority, Weighted, Geographic, MultiValue, Subnet');
  });
});
