import { useState } from 'react';
import { Anchor, AppShell, Button, Group, Title } from '@mantine/core';
import { ConsoleApi } from './api';
import { useRoute } from './routes';
import { SignIn } from './pages/SignIn';
import { AgentsPage } from './pages/AgentsPage';
import { GoalsPage } from './pages/GoalsPage';
import { GoalPage } from './pages/GoalPage';

/** `/?key=<API key>` signs in directly (the link `npm start` prints); the key then leaves the address bar. */
function keyFromAddress(): string | undefined {
  const url = new URL(location.href);
  const key = url.searchParams.get('key');
  if (!key) return undefined;
  url.searchParams.delete('key');
  history.replaceState(null, '', url.toString());
  return key;
}

export function App() {
  const [api, setApi] = useState<ConsoleApi | undefined>(() => ConsoleApi.fromStorage());
  const [pendingKey] = useState(keyFromAddress);
  const route = useRoute();

  if (!api) return <SignIn initialKey={pendingKey} onSignedIn={setApi} />;
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="lg" wrap="nowrap">
            <Title order={1} size="h4">
              IoA console
            </Title>
            <nav aria-label="Main">
              <Group gap="md" wrap="nowrap">
                <Anchor href="#/agents" fw={route.page === 'agents' ? 700 : 400}>
                  Agents
                </Anchor>
                <Anchor href="#/goals" fw={route.page !== 'agents' ? 700 : 400}>
                  Goals
                </Anchor>
              </Group>
            </nav>
          </Group>
          <Button
            variant="subtle"
            size="compact-sm"
            onClick={() => {
              ConsoleApi.signOut();
              setApi(undefined);
            }}
          >
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        {route.page === 'agents' && <AgentsPage api={api} />}
        {route.page === 'goals' && <GoalsPage api={api} />}
        {route.page === 'goal' && <GoalPage key={route.goalId} api={api} goalId={route.goalId} />}
      </AppShell.Main>
    </AppShell>
  );
}
