import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { DiscoveryModule } from './discovery.module.js';

await createService(DiscoveryModule, { name: 'discovery' });
