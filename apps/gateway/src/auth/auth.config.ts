import { registerAs, type ConfigType } from '@nestjs/config';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { validateEnvironment } from '@ioa/config';
import { API_KEY_PATTERN, API_KEY_RULE } from './api-key.js';

/** How people authenticate to the gateway and how much each account may ask of it; validated at boot. */
class AuthEnvironment {
  /** Provisioned at boot as a key of the built-in admin account (`npm start` generates one once). */
  @IsOptional()
  @Matches(API_KEY_PATTERN, { message: `IOA_ADMIN_API_KEY: ${API_KEY_RULE}` })
  IOA_ADMIN_API_KEY?: string;

  /** An OpenID Connect issuer whose bearer JWTs are accepted (its JWKS found by discovery). */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] }, { message: 'OIDC_ISSUER must be an http(s) URL' })
  OIDC_ISSUER?: string;

  @ValidateIf((environment: AuthEnvironment) => environment.OIDC_ISSUER !== undefined)
  @IsString({ message: 'OIDC_AUDIENCE is required with OIDC_ISSUER: tokens minted for other clients must not work' })
  @MaxLength(500)
  OIDC_AUDIENCE?: string;

  @IsOptional()
  @Matches(/^[\w.:-]{1,100}$/, { message: 'OIDC_ACCOUNT_CLAIM must be a claim name' })
  OIDC_ACCOUNT_CLAIM?: string;

  @IsOptional()
  @Matches(/^[\w.:-]{1,100}$/, { message: 'OIDC_ROLE_CLAIM must be a claim name' })
  OIDC_ROLE_CLAIM?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'GATEWAY_RATE_LIMIT_PER_MINUTE must be an integer' })
  @Min(1)
  @Max(1_000_000)
  GATEWAY_RATE_LIMIT_PER_MINUTE?: number;
}

/** REST requests per account per minute: generous for people and scripts, a wall for a runaway client. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 1200;

export const authConfig = registerAs('auth', () => {
  const environment = {
    IOA_ADMIN_API_KEY: process.env.IOA_ADMIN_API_KEY,
    OIDC_ISSUER: process.env.OIDC_ISSUER,
    OIDC_AUDIENCE: process.env.OIDC_AUDIENCE,
    OIDC_ACCOUNT_CLAIM: process.env.OIDC_ACCOUNT_CLAIM,
    OIDC_ROLE_CLAIM: process.env.OIDC_ROLE_CLAIM,
    GATEWAY_RATE_LIMIT_PER_MINUTE: process.env.GATEWAY_RATE_LIMIT_PER_MINUTE,
  };
  const set = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  );
  validateEnvironment(set, AuthEnvironment);
  return {
    adminApiKey: set.IOA_ADMIN_API_KEY,
    oidc: set.OIDC_ISSUER
      ? {
          issuer: set.OIDC_ISSUER.replace(/\/+$/, ''),
          audience: set.OIDC_AUDIENCE!,
          /** The claim that names the caller's account (its value becomes the account id). */
          accountClaim: set.OIDC_ACCOUNT_CLAIM ?? 'ioa_account',
          /** `admin` or `member`; a token without it is a member's. */
          roleClaim: set.OIDC_ROLE_CLAIM ?? 'ioa_role',
        }
      : undefined,
    rateLimitPerMinute: Number(set.GATEWAY_RATE_LIMIT_PER_MINUTE ?? DEFAULT_RATE_LIMIT_PER_MINUTE),
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;
