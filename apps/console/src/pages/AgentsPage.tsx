import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Collapse, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import type { AdaptedAgentV1 } from '@ioa/contracts';
import { errorMessage, type AgentItem, type ConsoleApi, type Principal } from '../api';
import { ENDPOINT_KIND_LABELS } from '../connect-agent';
import { useFeed } from '../use-feed';
import { ConfirmedButton } from './ConfirmedButton';
import { ConnectAgentForm } from './ConnectAgentForm';
import { ErrorAlert } from './ErrorAlert';

/** Agents the adapters service speaks for can be removed here by their account (or an admin); native ones leave. */
function canRemove(agent: AgentItem, principal: Principal | undefined): boolean {
  if (!principal || agent.endpoint.kind === 'nats') return false;
  return principal.role === 'admin' || agent.owner === principal.accountId;
}

/**
 * The directory: every agent with its presence (live), endpoint kind and skills; the search is discovery's.
 * Agents built elsewhere (A2A, MCP, OpenAI-compatible, webhooks) are connected and removed here.
 */
export function AgentsPage({ api, principal }: { api: ConsoleApi; principal: Principal | undefined }) {
  const [query, setQuery] = useState('');
  /** The agents shown, and the search they answer (the box may already hold the next one). */
  const [shown, setShown] = useState<{ query: string; agents: AgentItem[] }>();
  const [error, setError] = useState<string>();
  const [connecting, setConnecting] = useState(false);
  const [connected, setConnected] = useState<AdaptedAgentV1>();

  const load = useCallback(() => {
    api
      .agents(query)
      .then((page) => {
        setShown({ query: query.trim(), agents: page.items });
        setError(undefined);
      })
      .catch((failure: unknown) => setError(errorMessage(failure)));
  }, [api, query]);

  useEffect(() => {
    const timer = setTimeout(load, 250);
    return () => clearTimeout(timer);
  }, [load]);
  useFeed(api, load);

  const remove = async (agent: AgentItem): Promise<boolean> => {
    try {
      await api.removeAgent(agent.id, agent.owner);
      if (connected?.agent.id === agent.id) setConnected(undefined);
      load();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    }
  };

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>Agents</Title>
        {principal && (
          <Button variant="light" aria-expanded={connecting} onClick={() => setConnecting(!connecting)}>
            {connecting ? 'Close the form' : 'Connect an agent'}
          </Button>
        )}
      </Group>
      {principal && (
        <Collapse expanded={connecting}>
          <ConnectAgentForm
            api={api}
            owner={principal.accountId}
            onConnected={(agent) => {
              setConnected(agent);
              setConnecting(false);
              load();
            }}
          />
        </Collapse>
      )}
      {connected && (
        <Alert
          color={connected.endpoint.reachable ? 'green' : 'yellow'}
          title={`Connected “${connected.agent.name}” (${ENDPOINT_KIND_LABELS[connected.endpoint.kind]})`}
          role="status"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setConnected(undefined)}
        >
          {connected.endpoint.reachable
            ? `Its endpoint answers; skills: ${connected.agent.skills.map((skill) => skill.name).join(', ')}.`
            : `Its endpoint does not answer yet, so teams will not choose it: ${connected.endpoint.lastError ?? 'no reason given'}.`}
        </Alert>
      )}
      <TextInput
        type="search"
        label="Search agents"
        description="What should the agent be able to do? Discovery ranks agents by their skills."
        value={query}
        onChange={(event) => setQuery(event.currentTarget.value)}
      />
      <ErrorAlert message={error} />
      <List
        listStyleType="none"
        spacing="sm"
        aria-label={shown?.query ? 'Search results' : 'All agents'}
        // Mantine's list item shrinks to its content: every agent's card takes the whole width instead.
        styles={{ itemWrapper: { display: 'flex', alignItems: 'stretch' } }}
      >
        {(shown?.agents ?? []).map((agent) => (
          <List.Item key={agent.id}>
            <Card withBorder padding="sm">
              <Group justify="space-between" wrap="wrap">
                <Text fw={700}>{agent.name}</Text>
                <Group gap="xs">
                  {agent.score !== undefined && (
                    <Badge variant="light" color="grape" aria-label={`score ${agent.score.toFixed(3)}`}>
                      score {agent.score.toFixed(3)}
                    </Badge>
                  )}
                  <Badge variant="outline" color="gray">
                    {ENDPOINT_KIND_LABELS[agent.endpoint.kind]}
                  </Badge>
                  <Badge color={agent.status === 'online' ? 'green' : 'gray'}>{agent.status}</Badge>
                </Group>
              </Group>
              <Text size="sm" c="dimmed">
                {agent.description}
              </Text>
              <Text size="sm">Skills: {agent.skills.map((skill) => skill.name).join(', ')}</Text>
              {canRemove(agent, principal) && (
                <Group gap="xs" mt="xs">
                  <ConfirmedButton
                    label="Remove"
                    confirmLabel="Remove from the network"
                    accessibleName={`Remove ${agent.name}`}
                    confirmAccessibleName={`Confirm removing ${agent.name}`}
                    color="red"
                    onConfirm={() => remove(agent)}
                  />
                </Group>
              )}
            </Card>
          </List.Item>
        ))}
      </List>
      {shown?.agents.length === 0 && <Text>No agent matches.</Text>}
    </Stack>
  );
}
