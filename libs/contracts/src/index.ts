/**
 * @ioa/contracts — the public NATS contract of IoA for TypeScript. Every subject, payload, error code and header
 * of the platform is declared here once; services, the gateway and external agents all import it.
 */
export * from './common/contract.js';
export * from './common/errors.js';
export * from './common/reply.js';
export * from './common/headers.js';
export * from './common/validation.js';
export * from './common/slug.js';
export * from './common/payload-bounds.js';
export * from './common/list-cursor.js';
export * from './common/list-page.v1.js';
export * from './common/health.v1.js';
export * from './common/dead-letters.v1.js';
export * from './registry/agent-card.v1.js';
export * from './registry/registry.v1.js';
export * from './registry/identity.v1.js';
export * from './discovery/discovery.v1.js';
export * from './common/usage.v1.js';
export * from './chat/chat.v1.js';
export * from './scheduler/tasks.v1.js';
export * from './scheduler/goals.v1.js';
export * from './scheduler/goal-list.v1.js';
export * from './chat/group-list.v1.js';
export * from './agent/agent.v1.js';
export * from './agent/agent-actions.v1.js';
export * from './agent/agent-deliveries.v1.js';
export * from './adapters/adapters.v1.js';
export * from './catalog.js';
