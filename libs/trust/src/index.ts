// The contract classes carry class-validator/class-transformer decorators, which need the metadata polyfill.
import 'reflect-metadata';
export * from './trust-layout.js';
export * from './service-permissions.js';
export * from './provision-trust.js';
export * from './agent-identity.js';
