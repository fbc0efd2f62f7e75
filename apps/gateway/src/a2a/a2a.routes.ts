import type { NextFunction, Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2aFacade } from './a2a-facade.js';
import { A2A_JSON_RPC_PATH, A2A_REST_PATH } from './agent-card.js';

/**
 * Mounts the SDK's Express handlers on the gateway's Express instance: they are complete protocol endpoints (body
 * parsing, JSON-RPC envelopes, SSE, errors), so they sit beside Nest's controllers rather than behind them.
 * The gateway authenticates nobody yet (REST neither), hence `noAuthentication`.
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
  const options = { requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } };
  app.use(A2A_JSON_RPC_PATH, jsonRpcHandler(options));
  app.use(A2A_REST_PATH, restHandler(options));
}
