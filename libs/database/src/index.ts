export * from './database.module.js';
export * from './outbox/outbox-event.entity.js';
export * from './outbox/outbox-message.js';
export * from './outbox/outbox.options.js';
export * from './outbox/outbox.repository.js';
export * from './outbox/outbox.relay.js';
export * from './outbox/outbox.module.js';
export * from './unit-of-work/unit-of-work.js';
