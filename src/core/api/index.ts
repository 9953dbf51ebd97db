/**
 * The management API's contract (docs/api.md): every request and response body, declared once. The server
 * (src/runtime/api) types its handlers with these and the client (src/client) its methods, so the two
 * cannot drift. Property names on the wire are exactly these.
 *
 * One module per resource; `ApiRoutes` (routes.ts) lists every route with its bodies.
 */
export * from './errors';
export * from './healthz';
export * from './profiles';
export * from './status';
export * from './reports';
export * from './operations';
export * from './shifts';
export * from './events';
export * from './dnssec';
export * from './dns-cookies';
export * from './webhooks';
export * from './decisions';
export * from './routes';
