import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { goalEventsConfig } from '../goals/goal-events.config.js';
import { FeedController } from './feed.controller.js';
import { NetworkFeed } from './network-feed.js';

/** `/v1/feed`: the network's live feed (SSE), read from the registry's and scheduler's JetStream streams. */
@Module({
  // The feed's heartbeat is the goal streams' (GATEWAY_SSE_HEARTBEAT_MS): one setting for every SSE route.
  imports: [ConfigModule.forFeature(goalEventsConfig)],
  controllers: [FeedController],
  providers: [NetworkFeed],
})
export class FeedModule {}
