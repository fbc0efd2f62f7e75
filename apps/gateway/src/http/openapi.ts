import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, getSchemaPath, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { AgentCardV1 } from '@ioa/contracts';
import { AGENT_LIST_ITEM_SCHEMA } from '../agents/dto/agent-list.response.js';
import { contractSchemas } from './contract-schemas.js';

export const DOCS_PATH = 'docs';

/** Contract classes that HTTP responses return as they are; their schemas come from the contract's decorators. */
const CONTRACT_RESPONSE_CLASSES = [AgentCardV1];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('IoA gateway')
    .setDescription(
      'HTTP API of IoA for TypeScript, an Internet of Agents. The gateway forwards each request to the service that ' +
        'owns the data over NATS; agents themselves speak the NATS contract directly. Every error has the body ' +
        "`{statusCode, error, message, details?}` where `error` is the platform's stable error code.",
    )
    .setVersion('1')
    .addTag('agents', 'Registered agents and semantic search over what they can do')
    .addTag('health', 'Reachability of the platform')
    // Every route but the health probes needs one of these (docs/security.md); any one is enough.
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: "An account's API key (ioa_…) or an OIDC issuer's JWT" },
      'bearer',
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: "An account's API key" }, 'apiKey')
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('apiKey')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/health')) continue;
    for (const method of ['get', 'head', 'options'] as const) {
      const operation = (operations as Partial<Record<typeof method, { security?: unknown[] }>>)[method];
      if (operation) operation.security = [];
    }
  }
  document.components ??= {};
  document.components.schemas = {
    ...contractSchemas(CONTRACT_RESPONSE_CLASSES),
    [AGENT_LIST_ITEM_SCHEMA]: {
      allOf: [
        { $ref: getSchemaPath(AgentCardV1) },
        {
          type: 'object',
          properties: {
            score: {
              type: 'number',
              description: 'Search only: cosine similarity to the best-matching query.',
            },
            matchedQuery: { type: 'string', description: 'Search only: the query that gave the score.' },
          },
        },
      ],
    },
    ...document.components.schemas,
  };
  return document;
}

/** The UI at `/docs`, the document at `/docs-json`. */
export function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: `${DOCS_PATH}-json`,
  });
}
