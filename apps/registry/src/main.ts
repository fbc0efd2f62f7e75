import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { RegistryModule } from './registry.module.js';

await createService(RegistryModule, { name: 'registry' });
