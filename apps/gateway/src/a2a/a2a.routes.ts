import type { NextFunction, Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { AccountRateLimiter } from '../auth/account-rate-limiter.js';
import { Authenticator } from '../auth/authenticator.js';
import { principalOfRequest, requireCredentials } from '../auth/protocol-authentication.js';
import { A2aFacade } from './a2a-facade.js';
import { AccountUser } from './account-user.js';
import { A2A_JSON_RPC_PATH, A2A_REST_PATH } from './agent-card.js';

/**
 * Mounts the SDK's Express handlers on the gateway's Express instance: they are complete protocol endpoints (body
 * parsing, JSON-RPC envelopes, SSE, errors), so they sit beside Nest's controllers rather than behind them.
 * The agent card is public (it says how to authenticate); JSON-RPC and HTTP+JSON need the same credentials as REST
 * (the card's security schemes), checked before the SDK sees the request, and act as the caller's account.
 */
export function mountA2aFacade(app: NestExpressApplication): void {
  const facade = app.get(A2aFacade);
  const { requestHandler } = facade;
  app.use(`/${AGENT_CARD_PATH}`, (request: Request, response: Response, next: NextFunction) => {
    const baseUrl = `${request.protocol}://${request.get('host') ?? 'localhost'}`;
    // v0.3 clients (no A2A-Version header) get the v0.3 shape of the same card.
    const handler = agentCardHandler({
      agentCardProvider: () => facade.agentCard(baseUrl),
      legacyCompat: { enabled: true },
    });
    return handler(request, response, next);
  });
  const userBuilder = (request: Request) => Promise.resolve(new AccountUser(principalOfRequest(request)));
  const options = { requestHandler, userBuilder, legacyCompat: { enabled: true } };
  const authenticate = requireCredentials(app.get(Authenticator), app.get(AccountRateLimiter));
  app.use(A2A_JSON_RPC_PATH, authenticate, jsonRpcHandler(options));
  app.use(A2A_REST_PATH, authenticate, restHandler(options));
}
