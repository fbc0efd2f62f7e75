import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { AdaptersModule } from './adapters.module.js';

await createService(AdaptersModule, { name: 'adapters' });
