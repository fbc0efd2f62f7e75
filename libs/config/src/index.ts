export * from './environment.js';
export * from './platform.config.js';
export * from './platform-config.module.js';
