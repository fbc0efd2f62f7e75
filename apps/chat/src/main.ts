import 'reflect-metadata';
import { createService } from '@ioa/messaging';
import { ChatModule } from './chat.module.js';

await createService(ChatModule, { name: 'chat' });
