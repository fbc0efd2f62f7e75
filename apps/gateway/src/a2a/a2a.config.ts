import { registerAs } from '@nestjs/config';
import { IsOptional, IsUrl } from 'class-validator';
import { validateEnvironment } from '@ioa/config';

/** Environment of the A2A facade, validated at boot like the gateway's own. */
class A2aEnvironment {
  /**
   * The gateway's address as A2A clients reach it (behind a proxy or an ingress, say). The agent card names its
   * endpoints with it; unset, the card names them after the Host of the request that fetched it.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] }, { message: 'GATEWAY_PUBLIC_URL must be an http(s) URL' })
  GATEWAY_PUBLIC_URL?: string;
}

export const a2aConfig = registerAs('a2a', () => {
  const publicUrl = process.env.GATEWAY_PUBLIC_URL;
  const environment = publicUrl === undefined || publicUrl === '' ? {} : { GATEWAY_PUBLIC_URL: publicUrl };
  validateEnvironment(environment, A2aEnvironment);
  return {
    publicUrl: environment.GATEWAY_PUBLIC_URL?.replace(/\/+$/, ''),
    /** The card lists at most this many of the network's online agents as skills. */
    maxSkillAgents: 50,
  };
});

export type A2aConfig = ReturnType<typeof a2aConfig>;
