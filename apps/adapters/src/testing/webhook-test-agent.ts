import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_SIGNATURE_HEADER, type WebhookDeliveryV1 } from '@ioa/contracts';
import { isValidSignature, signBody } from '../http/webhook-signature.js';

export interface WebhookTestAgent {
  url: string;
  deliveries: WebhookDeliveryV1[];
  /** Deliveries whose signature did not verify (must stay empty). */
  badSignatures: number;
  /** Sends the late result of a delivery (async mode) to its callback URL, signed; returns the HTTP status. */
  callBack(delivery: WebhookDeliveryV1, body: unknown, secret?: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A webhook agent speaking IoA's plain HTTP adapter contract. `sync`: answers `200 {result}` at once, a text
 * built from the brief. `async`: answers `202`; the test then calls back with `callBack`.
 */
export async function startWebhookTestAgent(secret: string, mode: 'sync' | 'async'): Promise<WebhookTestAgent> {
  const deliveries: WebhookDeliveryV1[] = [];
  const state = { badSignatures: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const body = Buffer.concat(chunks);
      if (!isValidSignature(secret, body, request.headers[WEBHOOK_SIGNATURE_HEADER] as string | undefined)) {
        state.badSignatures += 1;
        response.writeHead(401).end();
        return;
      }
      const delivery = JSON.parse(body.toString('utf8')) as WebhookDeliveryV1;
      deliveries.push(delivery);
      if (mode === 'async') {
        response.writeHead(202).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ result: `Translated: ${delivery.brief.description.toUpperCase()}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    get badSignatures() {
      return state.badSignatures;
    },
    async callBack(delivery, body, signingSecret = secret) {
      const text = JSON.stringify(body);
      const response = await fetch(delivery.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signBody(signingSecret, text) },
        body: text,
      });
      await response.body?.cancel();
      return response.status;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
