export * from './nats-server.js';
export * from './embedded-postgres.js';
