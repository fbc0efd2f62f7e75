export * from './expect-eventually.js';
export * from './test-infrastructure.js';
export * from './raw-nats.js';
export * from './openai-fake.js';
export * from './test-credentials.js';
export * from './nats-permission-probe.js';
export * from './test-agent-identity.js';
