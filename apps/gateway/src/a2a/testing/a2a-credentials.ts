import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';

/** `fetch` that sends these headers (credentials) with every request the A2A client makes. */
export function fetchWithHeaders(headers: Record<string, string>): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}

/** An A2A client factory whose transports authenticate with `headers` (the card itself is public). */
export function authenticatedClientFactory(
  headers: Record<string, string>,
  preferredTransports?: ClientFactoryOptions['preferredTransports'],
): ClientFactory {
  const fetchImpl = fetchWithHeaders(headers);
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      ...(preferredTransports ? { preferredTransports } : {}),
    }),
  );
}
