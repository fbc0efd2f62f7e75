import { useCallback, useEffect, useState, type FormEvent } from 'react';
import {
  Anchor,
  Badge,
  Grid,
  Button,
  Group,
  NumberInput,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { errorMessage, type ConsoleApi, type GoalSummary, type NewGoal } from '../api';
import { goalHref } from '../routes';
import { useFeed } from '../use-feed';
import { STATUS_COLOURS, tokensOf } from './goal-format';
import { ErrorAlert } from './ErrorAlert';

/** The goals (newest first, live) and the form that submits one. */
export function GoalsPage({ api }: { api: ConsoleApi }) {
  const [goals, setGoals] = useState<GoalSummary[]>([]);
  const [nextCursor, setNextCursor] = useState<string>();
  const [error, setError] = useState<string>();

  const reload = useCallback(() => {
    api
      .goals()
      .then((page) => {
        setGoals(page.items);
        setNextCursor(page.nextCursor);
      })
      .catch((failure: unknown) => setError(errorMessage(failure)));
  }, [api]);
  useEffect(reload, [reload]);
  useFeed(api, reload);

  const loadMore = () => {
    if (!nextCursor) return;
    void api.goals(nextCursor).then((page) => {
      setGoals((shown) => [...shown, ...page.items.filter((goal) => !shown.some((old) => old.id === goal.id))]);
      setNextCursor(page.nextCursor);
    });
  };

  return (
    <Stack>
      <Title order={2}>Goals</Title>
      <NewGoalForm api={api} />
      <ErrorAlert message={error} />
      {/* Without rows, the scrolling table would be a region the keyboard cannot reach and that says nothing. */}
      {goals.length > 0 && (
        <Table.ScrollContainer minWidth={480}>
          <Table striped aria-label="Goals">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Goal</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Tokens</Table.Th>
                <Table.Th>Submitted</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {goals.map((goal) => (
                <Table.Tr key={goal.id}>
                  <Table.Td>
                    <Anchor href={goalHref(goal.id)}>{goal.goal}</Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLOURS[goal.status]}>{goal.status}</Badge>
                  </Table.Td>
                  <Table.Td>{tokensOf(goal.usage, goal.budget)}</Table.Td>
                  <Table.Td>{new Date(goal.createdAt).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {goals.length === 0 && <Text>No goal yet: submit one above.</Text>}
      {nextCursor && (
        <Group>
          <Button variant="default" onClick={loadMore}>
            Load more
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function NewGoalForm({ api }: { api: ConsoleApi }) {
  const [goal, setGoal] = useState('');
  const [members, setMembers] = useState('');
  const [maxTurns, setMaxTurns] = useState<number | string>('');
  const [maxDepth, setMaxDepth] = useState<number | string>('');
  const [tokens, setTokens] = useState<number | string>('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request: NewGoal = { goal };
    const named = members
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (named.length > 0) request.members = named;
    if (typeof maxTurns === 'number') request.maxTurns = maxTurns;
    if (typeof maxDepth === 'number') request.maxDepth = maxDepth;
    if (typeof tokens === 'number') request.budget = { tokens };
    setBusy(true);
    setError(undefined);
    try {
      const submitted = await api.submitGoal(request);
      location.hash = goalHref(submitted.id);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md">
      <form onSubmit={(event) => void submit(event)} aria-label="New goal">
        <Stack gap="sm">
          <Title order={3} size="h5">
            New goal
          </Title>
          <Textarea
            label="Goal"
            required
            autosize
            minRows={2}
            value={goal}
            onChange={(event) => setGoal(event.currentTarget.value)}
          />
          {/* On a phone the members take a row of their own and the three limits share the next one. */}
          <Grid align="flex-end">
            <Grid.Col span={{ base: 12, md: 6 }}>
              <TextInput
                label="Members"
                description="Agent names, comma separated (optional)"
                value={members}
                onChange={(event) => setMembers(event.currentTarget.value)}
              />
            </Grid.Col>
            <Grid.Col span={{ base: 4, md: 2 }}>
              <NumberInput label="Max turns" min={2} max={200} value={maxTurns} onChange={setMaxTurns} />
            </Grid.Col>
            <Grid.Col span={{ base: 4, md: 2 }}>
              <NumberInput label="Max depth" min={1} max={5} value={maxDepth} onChange={setMaxDepth} />
            </Grid.Col>
            <Grid.Col span={{ base: 4, md: 2 }}>
              <NumberInput label="Budget (tokens)" min={1} value={tokens} onChange={setTokens} />
            </Grid.Col>
          </Grid>
          <ErrorAlert message={error} />
          <Group>
            <Button type="submit" loading={busy}>
              Submit goal
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
