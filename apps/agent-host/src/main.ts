import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { AgentHostModule } from './agent-host.module.js';

await createService(AgentHostModule, { name: 'agent-host' });
