import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { IdentitiesController } from './identities.controller.js';
import { IdentitiesService } from './identities.service.js';
import { identityRoutesConfig } from './identity-routes.config.js';

/** `/v1/agents/identities`: agents' NATS credentials, issued by the registry. */
@Module({
  imports: [ConfigModule.forFeature(identityRoutesConfig)],
  controllers: [IdentitiesController],
  providers: [IdentitiesService],
})
export class IdentitiesModule {}
