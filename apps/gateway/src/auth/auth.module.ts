import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { AccountRateLimiter } from './account-rate-limiter.js';
import { AccountsController } from './accounts.controller.js';
import { AccountsService } from './accounts.service.js';
import { authConfig } from './auth.config.js';
import { AuthenticationGuard } from './authentication.guard.js';
import { Authenticator } from './authenticator.js';
import { OidcVerifier } from './oidc-verifier.js';

/**
 * People's access to the gateway: accounts, API keys, OIDC bearer tokens, the global authentication guard and the
 * per-account rate limit (checked by the same guard, once the account is known).
 */
@Module({
  imports: [ConfigModule.forFeature(authConfig)],
  controllers: [AccountsController],
  providers: [
    AccountsService,
    OidcVerifier,
    Authenticator,
    AccountRateLimiter,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  exports: [Authenticator, AccountRateLimiter],
})
export class AuthModule {}
