import { registerAs } from '@nestjs/config';
import { IsOptional, Matches } from 'class-validator';
import { DEFAULT_NATS_URL, validateEnvironment } from '@ioa/config';

/** What the gateway tells an agent about where to connect, validated at boot. */
export class IdentityRoutesEnvironment {
  /**
   * The broker URL(s) agents outside the cluster use (comma-separated), returned with their credentials. Defaults to
   * the gateway's own NATS_URL, which is right for a local run and wrong behind a cluster's private address.
   */
  @IsOptional()
  @Matches(/^(nats|tls|wss?):\/\/[^,\s]+(,(nats|tls|wss?):\/\/[^,\s]+)*$/, {
    message: 'GATEWAY_AGENT_NATS_URLS must be one or more nats:// (or tls://, ws(s)://) URLs separated by commas',
  })
  GATEWAY_AGENT_NATS_URLS?: string;
}

export const identityRoutesConfig = registerAs('identityRoutes', () => {
  const environment = { GATEWAY_AGENT_NATS_URLS: process.env.GATEWAY_AGENT_NATS_URLS || undefined };
  validateEnvironment(environment, IdentityRoutesEnvironment);
  const urls = environment.GATEWAY_AGENT_NATS_URLS ?? process.env.NATS_URL ?? DEFAULT_NATS_URL;
  return { agentNatsUrls: urls.split(',') };
});
