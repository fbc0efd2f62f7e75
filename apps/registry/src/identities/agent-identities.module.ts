import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentIdentitiesController } from './agent-identities.controller.js';
import { AgentIdentitiesRepository } from './agent-identities.repository.js';
import { AgentIdentitiesService } from './agent-identities.service.js';
import { AgentIdentityEntity, RevokedAgentKeyEntity } from './agent-identity.entity.js';
import { IdentityAuthority } from './identity-authority.js';
import { identityConfig } from './identity.config.js';

/**
 * Agent identities: the registry is the network's identity authority for agents (it alone holds the agent signing
 * key). Exports the repository so registration can read which account owns an agent id.
 */
@Module({
  imports: [
    ConfigModule.forFeature(identityConfig),
    TypeOrmModule.forFeature([AgentIdentityEntity, RevokedAgentKeyEntity]),
  ],
  controllers: [AgentIdentitiesController],
  providers: [AgentIdentitiesRepository, AgentIdentitiesService, IdentityAuthority],
  exports: [AgentIdentitiesRepository],
})
export class AgentIdentitiesModule {}
