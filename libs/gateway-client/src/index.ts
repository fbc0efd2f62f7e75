/**
 * @ioa/gateway-client — what a terminal client of the gateway needs, shared by `npm run demo` and the `ioa` CLI:
 * authenticated REST calls, an SSE client that resumes with `Last-Event-ID`, and the terminal view of a goal's
 * events. It speaks only the gateway's public HTTP API.
 */
export * from './gateway-http.js';
export * from './goal-view.js';
export * from './sse-client.js';
