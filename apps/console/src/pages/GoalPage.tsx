import { useEffect, useReducer, useState, type FormEvent, type ReactNode } from 'react';
import Markdown from 'react-markdown';
import type { ChatMessageV1, GoalV1 } from '@ioa/contracts';
import { Alert, Badge, Button, Card, Group, List, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { errorMessage, type ConsoleApi } from '../api';
import { applyGoalEvent, EMPTY_GOAL, hasEnded, openQuestion, type LiveGoal } from '../goal-state';
import { STATUS_COLOURS, tokensOf } from './goal-format';
import { SubGoalTree } from './SubGoalTree';
import { ErrorAlert } from './ErrorAlert';

/**
 * One goal, live: its event stream drives the view (the team, the chat as a messenger shows it, the conversation's
 * state, the tasks), and the goal itself is read again when it changes (usage, conclusion, sub-goals). The stream
 * resumes after the last event seen when the connection drops, so nothing is lost or shown twice.
 */
export function GoalPage({ api, goalId }: { api: ConsoleApi; goalId: string }) {
  const [live, apply] = useReducer(applyGoalEvent, EMPTY_GOAL);
  const [goal, setGoal] = useState<GoalV1>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    const stop = new AbortController();
    let lastSeq = 0;
    void (async () => {
      try {
        for await (const event of api.goalEvents(goalId, lastSeq, stop.signal)) {
          lastSeq = Math.max(lastSeq, event.seq);
          apply(event);
        }
      } catch (failure) {
        if (!stop.signal.aborted) setError(failure instanceof Error ? failure.message : String(failure));
      }
    })();
    return () => stop.abort();
  }, [api, goalId]);

  // The goal's own view (usage, budget, conclusion, sub-goals) follows its status and its tasks.
  const changes = `${live.status}:${live.tasks.map((task) => task.state).join(',')}:${live.group?.state}`;
  useEffect(() => {
    api
      .goal(goalId)
      .then(setGoal)
      .catch((failure: unknown) => setError(errorMessage(failure)));
  }, [api, goalId, changes]);

  const status = live.status ?? goal?.status;
  return (
    <Stack>
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Title order={2} style={{ flex: 1, minWidth: 240 }}>
          {goal?.goal ?? 'Goal'}
        </Title>
        {status && (
          <Badge size="lg" color={STATUS_COLOURS[status]} aria-label="Goal status">
            {status}
          </Badge>
        )}
      </Group>
      {(live.statusReason ?? goal?.statusReason) && <Text c="dimmed">{live.statusReason ?? goal?.statusReason}</Text>}
      <ErrorAlert message={error} />
      <Controls api={api} goalId={goalId} live={live} status={status} />
      <Section label="Team">
        <List spacing="xs">
          {live.team.map((member) => (
            <List.Item key={member.agentId}>
              <Text span fw={700}>
                {member.name}
              </Text>
              {member.agentId === live.leaderId && ' (leads)'}: <Text span>{member.reason}</Text>
            </List.Item>
          ))}
        </List>
        {live.team.length === 0 && <Text c="dimmed">The team is forming…</Text>}
      </Section>
      <Conversation live={live} />
      <Section label="Tasks">
        <Stack gap="xs">
          {live.tasks.map((task) => (
            <Card key={task.id} withBorder padding="xs">
              <Group justify="space-between" wrap="wrap">
                <Text fw={700}>{task.assigneeName}</Text>
                <Badge color={task.state === 'completed' ? 'green' : task.state === 'failed' ? 'red' : 'blue'}>
                  {task.state}
                </Badge>
              </Group>
              <Text size="sm">{task.brief?.abstract ?? task.description}</Text>
              {(task.result ?? task.statusMessage) && (
                <Text size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
                  {task.result ?? task.statusMessage}
                </Text>
              )}
            </Card>
          ))}
          {live.tasks.length === 0 && <Text c="dimmed">No task yet.</Text>}
        </Stack>
      </Section>
      <Section label="Sub-goals">
        <SubGoalTree api={api} tasks={live.tasks} />
      </Section>
      {goal && (
        <Section label="Usage">
          <Text>
            {tokensOf(goal.usage, goal.budget)} tokens, {goal.usage.modelCalls} model calls,{' '}
            {Math.round(goal.usage.seconds)} s{goal.budget.seconds ? ` of ${goal.budget.seconds} s` : ''}
          </Text>
        </Section>
      )}
      {goal?.conclusion && (
        <Section label="Conclusion">
          <div className="conclusion">
            <Markdown>{goal.conclusion}</Markdown>
          </div>
        </Section>
      )}
    </Stack>
  );
}

function Section({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={label}>
      <Title order={3} size="h5" mb="xs">
        {label}
      </Title>
      {children}
    </Paper>
  );
}

const MOVE_LABELS: Record<string, string> = {
  discussion: 'says',
  sync_task_assign: 'assigns (sync)',
  async_task_assign: 'assigns (async)',
  pause: 'pauses',
  conclude: 'concludes',
  user: 'person',
  system: 'system',
};

function Conversation({ live }: { live: LiveGoal }) {
  const names = new Map(live.team.map((member) => [member.agentId, member.name]));
  names.set('user', 'you');
  return (
    <Paper withBorder p="md" component="section" aria-label="Conversation">
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h5">
          Conversation
        </Title>
        {live.group && (
          <Badge variant="light" aria-label="Conversation state">
            {live.group.state.replaceAll('_', ' ')}
            {live.group.currentSpeaker ? `, ${names.get(live.group.currentSpeaker) ?? 'someone'} speaks` : ''}
          </Badge>
        )}
      </Group>
      <Stack gap="xs" role="log" aria-label="Messages">
        {live.messages.map((message) => (
          <Message key={message.id} message={message} names={names} />
        ))}
        {live.messages.length === 0 && <Text c="dimmed">No message yet.</Text>}
      </Stack>
    </Paper>
  );
}

function Message({ message, names }: { message: ChatMessageV1; names: Map<string, string> }) {
  const next = message.nextSpeaker ? (names.get(message.nextSpeaker) ?? message.nextSpeaker) : undefined;
  return (
    <Card withBorder padding="xs" bg={message.senderId === 'user' ? 'blue.0' : undefined}>
      <Group gap="xs" wrap="wrap">
        <Text fw={700}>{message.senderName}</Text>
        <Badge size="sm" variant="outline">
          {MOVE_LABELS[message.type] ?? message.type}
        </Badge>
        {next && (
          <Text size="sm" c="dimmed">
            → {next}
          </Text>
        )}
      </Group>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {message.content}
      </Text>
      {(message.tasks ?? []).map((task) => (
        <Text key={task.taskId} size="sm" c="dimmed">
          Task for {names.get(task.assigneeId) ?? task.assigneeId} ({task.mode}): {task.abstract}
        </Text>
      ))}
    </Card>
  );
}

function Controls({
  api,
  goalId,
  live,
  status,
}: {
  api: ConsoleApi;
  goalId: string;
  live: LiveGoal;
  status: GoalV1['status'] | undefined;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const question = openQuestion(live);
  const ended = hasEnded(status);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      setText('');
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  const send = (event: FormEvent) => {
    event.preventDefault();
    void run(() => api.sendMessage(goalId, text));
  };

  return (
    <Stack gap="xs">
      {question && (
        <Alert color="orange" title="The team asks you" role="status">
          {question.content}
        </Alert>
      )}
      {(question || ended) && (
        <form onSubmit={send}>
          <Group align="flex-end" wrap="wrap">
            <Textarea
              label={question ? 'Your answer' : 'Follow-up'}
              autosize
              minRows={1}
              required
              style={{ flex: 1, minWidth: 220 }}
              value={text}
              onChange={(event) => setText(event.currentTarget.value)}
            />
            <Button type="submit" loading={busy}>
              {question ? 'Send answer' : 'Send follow-up'}
            </Button>
          </Group>
        </form>
      )}
      {!ended && status && (
        <Group>
          <Button color="red" variant="light" loading={busy} onClick={() => void run(() => api.cancelGoal(goalId))}>
            Cancel goal
          </Button>
        </Group>
      )}
      <ErrorAlert message={error} />
    </Stack>
  );
}
