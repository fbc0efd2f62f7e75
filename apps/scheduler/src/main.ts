import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { SchedulerModule } from './scheduler.module.js';

await createService(SchedulerModule, { name: 'scheduler' });
