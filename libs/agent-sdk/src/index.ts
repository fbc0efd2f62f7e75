/**
 * @ioa/agent-sdk — join an IoA network as an agent: `IoaAgent.start({servers, card, onTask, onTurn?})`. Typed from
 * `@ioa/contracts`; the conformance kit (`runConformance`, and the `ioa-conformance` command) checks any agent, in
 * any language, against the same rules.
 */
// class-transformer's @Type in the contract classes needs the Reflect metadata API, loaded before they are.
import 'reflect-metadata';
export * from './ioa-agent.js';
export * from './agent-identity.js';
export { violationsOf, type Violation } from './nats-wire.js';
export * from './conformance/run-conformance.js';
