import {
  slugOf,
  type AdaptedEndpointKind,
  type AgentSkillV1,
  type EndpointKind,
  type RegisterAdaptedAgentV1Request,
} from '@ioa/contracts';

/** How the console names each endpoint kind a card can show. */
export const ENDPOINT_KIND_LABELS: Record<EndpointKind, string> = {
  nats: 'native',
  a2a: 'A2A',
  mcp: 'MCP',
  openai: 'OpenAI',
  http: 'webhook',
};

/**
 * What the "Connect an agent" form asks for each kind the adapters service serves: where the URL points, which
 * credential the endpoint takes, and whether the endpoint describes itself (A2A cards and MCP tools do, so name,
 * description and skills are only overrides there; an OpenAI-compatible model or a webhook must be described).
 */
export interface KindForm {
  label: string;
  urlLabel: string;
  urlHint: string;
  /** The credential field, if the kind takes one. */
  credential?: { field: 'apiKey' | 'secret'; label: string; hint: string; required: boolean };
  describesItself: boolean;
  /** The model name and system prompt (`openai` only). */
  asksForModel: boolean;
}

export const KIND_FORMS: Record<AdaptedEndpointKind, KindForm> = {
  a2a: {
    label: 'A2A agent',
    urlLabel: 'Agent URL',
    urlHint: 'Its base URL: the adapter reads its card from /.well-known/agent-card.json.',
    credential: { field: 'apiKey', label: 'Bearer token', hint: 'Only if the agent asks for one.', required: false },
    describesItself: true,
    asksForModel: false,
  },
  mcp: {
    label: 'MCP server',
    urlLabel: 'MCP endpoint',
    urlHint: 'Its Streamable HTTP URL: its tools become the agent’s skills.',
    credential: { field: 'apiKey', label: 'Bearer token', hint: 'Only if the server asks for one.', required: false },
    describesItself: true,
    asksForModel: false,
  },
  openai: {
    label: 'OpenAI-compatible model',
    urlLabel: 'API base URL',
    urlHint: 'Ends in /v1, e.g. a vLLM, llama.cpp or Ollama server.',
    credential: { field: 'apiKey', label: 'API key', hint: 'Only if the endpoint asks for one.', required: false },
    describesItself: false,
    asksForModel: true,
  },
  http: {
    label: 'Webhook',
    urlLabel: 'Webhook URL',
    urlHint: 'Each task is POSTed here; it answers with the result, or 202 and a signed callback later.',
    credential: {
      field: 'secret',
      label: 'Signing secret',
      hint: 'Signs every delivery and callback (HMAC-SHA256); give the same secret to the webhook.',
      required: true,
    },
    describesItself: false,
    asksForModel: false,
  },
};

/** The form as the person filled it: every field a string, empty when left blank. */
export interface ConnectAgentValues {
  kind: AdaptedEndpointKind;
  url: string;
  credential: string;
  model: string;
  systemPrompt: string;
  name: string;
  description: string;
  /** One skill per line: `Name: what it does`, or just the name. */
  skills: string;
}

export const EMPTY_CONNECT_AGENT: ConnectAgentValues = {
  kind: 'a2a',
  url: '',
  credential: '',
  model: '',
  systemPrompt: '',
  name: '',
  description: '',
  skills: '',
};

/** `Name: what it does` per line; a line without a colon is both. Ids are made unique within the agent. */
export function skillsFromLines(text: string): AgentSkillV1[] {
  const used = new Map<string, number>();
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const colon = line.indexOf(':');
      const name = (colon > 0 ? line.slice(0, colon) : line).trim();
      const description = (colon > 0 ? line.slice(colon + 1).trim() : '') || name;
      const base = slugOf(name, 'skill');
      const seen = used.get(base) ?? 0;
      used.set(base, seen + 1);
      const id = seen === 0 ? base : `${base.slice(0, 60)}-${seen + 1}`;
      return { id, name, description, tags: [], examples: [] };
    });
}

/**
 * The registration the gateway receives (`POST /v1/agents`): only what the person filled in, trimmed, so that an
 * A2A card or MCP server fills the rest and the adapters service names anything still missing. The owner is the
 * signed-in account.
 */
export function registrationOf(values: ConnectAgentValues, owner: string): RegisterAdaptedAgentV1Request {
  const form = KIND_FORMS[values.kind];
  const filled = (text: string) => (text.trim() ? text.trim() : undefined);
  const endpoint: RegisterAdaptedAgentV1Request['endpoint'] = { kind: values.kind, url: values.url.trim() };
  const credential = filled(values.credential);
  if (form.credential && credential) endpoint[form.credential.field] = credential;
  const model = filled(values.model);
  const systemPrompt = filled(values.systemPrompt);
  if (form.asksForModel && model) endpoint.model = model;
  if (form.asksForModel && systemPrompt) endpoint.systemPrompt = systemPrompt;
  const skills = skillsFromLines(values.skills);
  const request: RegisterAdaptedAgentV1Request = { owner, endpoint };
  const name = filled(values.name);
  const description = filled(values.description);
  if (name) request.name = name;
  if (description) request.description = description;
  if (skills.length > 0) request.skills = skills;
  return request;
}

/** A webhook signing secret: 32 random bytes in hex, from the browser's cryptographic generator. */
export function newSigningSecret(
  fillRandom: (bytes: Uint8Array<ArrayBuffer>) => void = (bytes) => crypto.getRandomValues(bytes),
): string {
  const bytes = new Uint8Array(32);
  fillRandom(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
