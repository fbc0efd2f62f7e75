export * from './profiles.js';
export * from './team.purpose.js';
export * from './turn.purpose.js';
export * from './task.purpose.js';
export * from './writer.purpose.js';
