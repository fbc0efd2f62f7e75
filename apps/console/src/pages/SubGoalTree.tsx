import { useEffect, useId, useState } from 'react';
import Markdown from 'react-markdown';
import type { GoalV1, TaskV1 } from '@ioa/contracts';
import { Anchor, Badge, Group, List, Stack, Text, UnstyledButton } from '@mantine/core';
import { errorMessage, type ConsoleApi } from '../api';
import { hasEnded } from '../goal-state';
import { goalHref } from '../routes';
import { STATUS_COLOURS, tokensOf } from './goal-format';

/**
 * How often an open node re-reads its sub-goal until it ends. Polling rather than one event stream per node: a
 * browser keeps about six connections per host, and the page's own stream and the feed already hold two, so a tree
 * of streams would starve the page.
 */
const REFRESH_MS = 2000;

/**
 * The sub-goals formed for a goal's tasks, as a tree: each one opens in place (status, team, tasks, usage,
 * conclusion) and lists its own sub-goals, opened the same way, down to the deepest. Nodes are disclosure buttons
 * in nested lists, so the keyboard and a screen reader see "expanded"/"collapsed" on each.
 */
export function SubGoalTree({
  api,
  tasks,
  whenNone = 'None.',
}: {
  api: ConsoleApi;
  tasks: readonly TaskV1[];
  /** What to say when no task was delegated: a sub-goal's own (empty) tree says so in its words. */
  whenNone?: string;
}) {
  const delegated = tasks.filter((task) => task.childGoalId);
  if (delegated.length === 0) return <Text c="dimmed">{whenNone}</Text>;
  return (
    <List listStyleType="none" withPadding={false} spacing="xs" aria-label="Sub-goal tree">
      {delegated.map((task) => (
        <List.Item key={task.childGoalId}>
          <SubGoalNode api={api} goalId={task.childGoalId!} task={task} />
        </List.Item>
      ))}
    </List>
  );
}

function SubGoalNode({ api, goalId, task }: { api: ConsoleApi; goalId: string; task: TaskV1 }) {
  const [open, setOpen] = useState(false);
  const [goal, setGoal] = useState<GoalV1>();
  const [error, setError] = useState<string>();
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    let closed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () =>
      api
        .goal(goalId)
        .then((latest) => {
          if (closed) return;
          setGoal(latest);
          setError(undefined);
          if (!hasEnded(latest.status)) timer = setTimeout(read, REFRESH_MS);
        })
        .catch((failure: unknown) => {
          if (closed) return;
          setError(errorMessage(failure));
          timer = setTimeout(read, REFRESH_MS);
        });
    void read();
    return () => {
      closed = true;
      clearTimeout(timer);
    };
  }, [api, goalId, open]);

  const label = task.brief?.abstract ?? task.description;
  return (
    <Stack gap={4}>
      <UnstyledButton
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
        style={{ textDecoration: 'underline' }}
      >
        <Text span aria-hidden>
          {open ? '▾ ' : '▸ '}
        </Text>
        {label} ({task.assigneeName}&apos;s sub-team)
      </UnstyledButton>
      {open && (
        <Stack
          id={panelId}
          role="group"
          aria-label={`Sub-goal: ${label}`}
          gap={4}
          pl="md"
          style={{ borderLeft: '2px solid var(--mantine-color-gray-4)' }}
        >
          {error && (
            <Text c="red" role="alert">
              {error}
            </Text>
          )}
          {!goal && !error && <Text c="dimmed">Loading…</Text>}
          {goal && <SubGoalDetails api={api} goal={goal} />}
        </Stack>
      )}
    </Stack>
  );
}

function SubGoalDetails({ api, goal }: { api: ConsoleApi; goal: GoalV1 }) {
  return (
    <>
      <Group gap="xs" wrap="wrap">
        <Badge color={STATUS_COLOURS[goal.status]} aria-label="Sub-goal status">
          {goal.status}
        </Badge>
        <Anchor href={goalHref(goal.id)}>Open this goal</Anchor>
      </Group>
      <Text size="sm">{goal.goal}</Text>
      <Text size="sm">
        <Text span fw={700}>
          Team:
        </Text>{' '}
        {goal.team.length > 0 ? goal.team.map((member) => member.name).join(', ') : 'forming…'}
      </Text>
      {goal.tasks.map((child) => (
        <Text key={child.id} size="sm">
          {child.assigneeName}: {child.brief?.abstract ?? child.description}{' '}
          <Badge size="xs" variant="light">
            {child.state}
          </Badge>
        </Text>
      ))}
      <Text size="sm" c="dimmed">
        {tokensOf(goal.usage, goal.budget)} tokens
      </Text>
      {goal.conclusion && (
        <div className="conclusion">
          <Markdown>{goal.conclusion}</Markdown>
        </div>
      )}
      <SubGoalTree api={api} tasks={goal.tasks} whenNone="No sub-goals of its own." />
    </>
  );
}
