import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, Group, Spoiler, Stack, Table, Text, Title } from '@mantine/core';
import { errorMessage, type ConsoleApi, type DeadLetterItem, type PlatformHealth, type ServiceHealth } from '../api';
import { ConfirmedButton } from './ConfirmedButton';
import { ErrorAlert } from './ErrorAlert';

/** How often the page asks again: health changes by itself (a consumer gets stuck, a service comes back). */
const REFRESH_MS = 5_000;

const SERVICE_STATUS_COLORS: Record<ServiceHealth['status'], string> = { up: 'green', degraded: 'yellow', down: 'red' };

type DeadLetters = Awaited<ReturnType<ConsoleApi['deadLetters']>>;

/**
 * What an operator watches: each service and its stream consumers (pending, redeliveries, dead letters, stuck), and
 * the events the consumers gave up on, with their error, to replay once the cause is fixed. Administrators only:
 * dead letters carry any account's events.
 */
export function OperationsPage({ api }: { api: ConsoleApi }) {
  const [health, setHealth] = useState<PlatformHealth>();
  const [deadLetters, setDeadLetters] = useState<DeadLetters>();
  const [error, setError] = useState<string>();
  const [replayed, setReplayed] = useState<string>();

  const load = useCallback(async () => {
    try {
      const [platform, letters] = await Promise.all([api.health(), api.deadLetters()]);
      setHealth(platform);
      setDeadLetters(letters);
      setError(undefined);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, [api]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  const replay = async (letter: DeadLetterItem): Promise<boolean> => {
    try {
      const result = await api.replayDeadLetter(letter.id);
      setReplayed(`Dead letter ${result.id} was published again on ${result.subject}.`);
      await load();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    }
  };

  const services = Object.entries(health?.services ?? {});
  const consumers = services.flatMap(([service, state]) =>
    (state.consumers ?? []).map((consumer) => ({ service, ...consumer })),
  );
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>Operations</Title>
        <Button variant="default" onClick={() => void load()}>
          Refresh
        </Button>
      </Group>
      <ErrorAlert message={error} />
      {health && (
        <Group gap="xs">
          <Text>The platform is</Text>
          <Badge color={health.status === 'ok' ? 'green' : 'yellow'} aria-label="Platform status">
            {health.status}
          </Badge>
          <Text>
            NATS {health.nats}, database {health.database}, {health.ready ? 'ready to serve' : 'not ready to serve'}.
          </Text>
        </Group>
      )}
      <section aria-labelledby="services-title">
        <Title order={3} size="h4" id="services-title" mb="xs">
          Services
        </Title>
        <Table.ScrollContainer minWidth={560}>
          <Table aria-labelledby="services-title" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Service</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Database</Table.Th>
                <Table.Th>Answered in</Table.Th>
                <Table.Th>Why</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {services.map(([service, state]) => (
                <Table.Tr key={service}>
                  <Table.Td>{service}</Table.Td>
                  <Table.Td>
                    <Badge color={SERVICE_STATUS_COLORS[state.status]} aria-label={`Status of ${service}`}>
                      {state.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{state.database ?? '—'}</Table.Td>
                  <Table.Td>{state.latencyMs === undefined ? '—' : `${state.latencyMs} ms`}</Table.Td>
                  <Table.Td>{state.reason ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </section>
      <section aria-labelledby="consumers-title">
        <Title order={3} size="h4" id="consumers-title" mb="xs">
          Event consumers
        </Title>
        <Table.ScrollContainer minWidth={820}>
          <Table aria-labelledby="consumers-title" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Service</Table.Th>
                <Table.Th>Subject</Table.Th>
                <Table.Th>Pending</Table.Th>
                <Table.Th>Unacknowledged</Table.Th>
                <Table.Th>Redelivered</Table.Th>
                <Table.Th>Dead letters</Table.Th>
                <Table.Th>State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {consumers.map((consumer) => (
                <Table.Tr key={consumer.name}>
                  <Table.Td>{consumer.service}</Table.Td>
                  <Table.Td>
                    <Code>{consumer.subject}</Code>
                  </Table.Td>
                  <Table.Td>{consumer.pending}</Table.Td>
                  <Table.Td>
                    {consumer.ackPending} / {consumer.maxAckPending}
                  </Table.Td>
                  <Table.Td>{consumer.redelivered}</Table.Td>
                  <Table.Td>{consumer.deadLetters}</Table.Td>
                  <Table.Td>
                    {consumer.stuck ? (
                      <Text size="sm" c="red.8">
                        stuck: {consumer.stuckReason}
                      </Text>
                    ) : (
                      'moving'
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </section>
      <section aria-labelledby="dead-letters-title">
        <Title order={3} size="h4" id="dead-letters-title" mb="xs">
          Dead letters{deadLetters ? ` (${deadLetters.total})` : ''}
        </Title>
        {replayed && (
          <Alert
            color="green"
            role="status"
            withCloseButton
            closeButtonLabel="Dismiss"
            onClose={() => setReplayed(undefined)}
          >
            {replayed} Every consumer of that subject receives it again; if its cause is still there, it comes back here
            under a new id.
          </Alert>
        )}
        {deadLetters?.unavailable.map((missing) => (
          <Alert key={missing.service} color="yellow" role="alert">
            {missing.service} did not answer: {missing.reason}
          </Alert>
        ))}
        {deadLetters?.items.length === 0 && <Text>No event was given up on.</Text>}
        {deadLetters && deadLetters.items.length > 0 && (
          <Table.ScrollContainer minWidth={820}>
            <Table aria-labelledby="dead-letters-title" striped verticalSpacing="sm">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Id</Table.Th>
                  <Table.Th>Given up by</Table.Th>
                  <Table.Th>Event</Table.Th>
                  <Table.Th>Why</Table.Th>
                  <Table.Th>Body</Table.Th>
                  <Table.Th>Replay</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {deadLetters.items.map((letter) => (
                  <Table.Tr key={`${letter.service}-${letter.id}`}>
                    <Table.Td>{letter.id}</Table.Td>
                    <Table.Td>
                      {letter.service}
                      <Text size="xs" c="dimmed">
                        {new Date(letter.deadLetteredAt).toLocaleString()}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Code>{letter.subject}</Code>
                      <Text size="xs" c="dimmed">
                        stream sequence {letter.streamSequence}, {letter.deliveries} deliveries
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" fw={600}>
                        {letter.reason === 'invalid_payload' ? 'Invalid payload' : 'The handler kept failing'}
                      </Text>
                      <Text size="sm" style={{ wordBreak: 'break-word' }}>
                        {letter.error}
                      </Text>
                    </Table.Td>
                    <Table.Td maw={320}>
                      <Spoiler maxHeight={48} showLabel="Show all" hideLabel="Show less">
                        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                          {letter.payload}
                          {letter.payloadTruncated ? ` … (${letter.payloadBytes} bytes in all)` : ''}
                        </Code>
                      </Spoiler>
                    </Table.Td>
                    <Table.Td>
                      <ConfirmedButton
                        label="Replay"
                        confirmLabel="Publish again"
                        accessibleName={`Replay dead letter ${letter.id}`}
                        confirmAccessibleName={`Confirm replaying dead letter ${letter.id}`}
                        onConfirm={() => replay(letter)}
                      />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </section>
    </Stack>
  );
}
