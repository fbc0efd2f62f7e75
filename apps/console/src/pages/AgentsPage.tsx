import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Card, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { ApiError, type AgentItem, type ConsoleApi } from '../api';
import { useFeed } from '../use-feed';

const KIND_LABELS: Record<string, string> = {
  nats: 'native',
  a2a: 'A2A',
  mcp: 'MCP',
  openai: 'OpenAI',
  http: 'webhook',
};

/** The directory: every agent with its presence (live), endpoint kind and skills; the search is discovery's. */
export function AgentsPage({ api }: { api: ConsoleApi }) {
  const [query, setQuery] = useState('');
  /** The agents shown, and the search they answer (the box may already hold the next one). */
  const [shown, setShown] = useState<{ query: string; agents: AgentItem[] }>();
  const [error, setError] = useState<string>();

  const load = useCallback(() => {
    api
      .agents(query)
      .then((page) => {
        setShown({ query: query.trim(), agents: page.items });
        setError(undefined);
      })
      .catch((failure: unknown) => setError(failure instanceof ApiError ? failure.message : String(failure)));
  }, [api, query]);

  useEffect(() => {
    const timer = setTimeout(load, 250);
    return () => clearTimeout(timer);
  }, [load]);
  useFeed(api, load);

  return (
    <Stack>
      <Title order={2}>Agents</Title>
      <TextInput
        type="search"
        label="Search agents"
        description="What should the agent be able to do? Discovery ranks agents by their skills."
        value={query}
        onChange={(event) => setQuery(event.currentTarget.value)}
      />
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      <List listStyleType="none" spacing="sm" aria-label={shown?.query ? 'Search results' : 'All agents'}>
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
                    {KIND_LABELS[agent.endpoint.kind] ?? agent.endpoint.kind}
                  </Badge>
                  <Badge color={agent.status === 'online' ? 'green' : 'gray'}>{agent.status}</Badge>
                </Group>
              </Group>
              <Text size="sm" c="dimmed">
                {agent.description}
              </Text>
              <Text size="sm">Skills: {agent.skills.map((skill) => skill.name).join(', ')}</Text>
            </Card>
          </List.Item>
        ))}
      </List>
      {shown?.agents.length === 0 && <Text>No agent matches.</Text>}
    </Stack>
  );
}
