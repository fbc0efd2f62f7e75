import { useState } from 'react';
import { Anchor, AppShell, Box, Button, Group, Title } from '@mantine/core';
import { ConsoleApi } from './api';
import { useRoute } from './routes';
import { SignIn } from './pages/SignIn';
import { AgentsPage } from './pages/AgentsPage';
import { GoalsPage } from './pages/GoalsPage';
import { GoalPage } from './pages/GoalPage';
import { KeysPage } from './pages/KeysPage';

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

  const signOut = () => {
    ConsoleApi.signOut();
    setApi(undefined);
  };

  if (!api) return <SignIn initialKey={pendingKey} onSignedIn={setApi} />;
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap">
            <Title order={1} size="h4" style={{ whiteSpace: 'nowrap' }}>
              IoA
              <Box component="span" visibleFrom="xs">
                {' '}
                console
              </Box>
            </Title>
            <nav aria-label="Main">
              <Group gap="sm" wrap="nowrap" style={{ whiteSpace: 'nowrap' }}>
                <Anchor href="#/agents" fw={route.page === 'agents' ? 700 : 400}>
                  Agents
                </Anchor>
                <Anchor href="#/goals" fw={route.page === 'goals' || route.page === 'goal' ? 700 : 400}>
                  Goals
                </Anchor>
                <Anchor href="#/keys" fw={route.page === 'keys' ? 700 : 400}>
                  API keys
                </Anchor>
              </Group>
            </nav>
          </Group>
          <Button variant="subtle" size="compact-sm" onClick={signOut}>
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        {route.page === 'agents' && <AgentsPage api={api} />}
        {route.page === 'goals' && <GoalsPage api={api} />}
        {route.page === 'goal' && <GoalPage key={route.goalId} api={api} goalId={route.goalId} />}
        {route.page === 'keys' && <KeysPage api={api} onSignedOut={signOut} />}
      </AppShell.Main>
    </AppShell>
  );
}
