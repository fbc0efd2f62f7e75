export * from './database.module.js';
