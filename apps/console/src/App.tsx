import { useEffect, useState } from 'react';
import { Anchor, AppShell, Box, Button, Group, Menu, Title } from '@mantine/core';
import { ConsoleApi, errorMessage, type Principal } from './api';
import { useRoute } from './routes';
import { SignIn } from './pages/SignIn';
import { AgentsPage } from './pages/AgentsPage';
import { GoalsPage } from './pages/GoalsPage';
import { GoalPage } from './pages/GoalPage';
import { KeysPage } from './pages/KeysPage';
import { OperationsPage } from './pages/OperationsPage';
import { ErrorAlert } from './pages/ErrorAlert';

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
  /**
   * Who is signed in, asked once per sign-in: the pages that act for the account (agents, keys) take it from here,
   * and administrators also get the operations page.
   */
  const [principal, setPrincipal] = useState<Principal>();
  const [principalError, setPrincipalError] = useState<string>();
  useEffect(() => {
    setPrincipal(undefined);
    setPrincipalError(undefined);
    api?.me().then(setPrincipal, (failure: unknown) => setPrincipalError(errorMessage(failure)));
  }, [api]);

  const signOut = () => {
    ConsoleApi.signOut();
    setApi(undefined);
  };

  const moreLinks = [
    { href: '#/keys', label: 'API keys', current: route.page === 'keys' },
    ...(principal?.role === 'admin'
      ? [{ href: '#/operations', label: 'Operations', current: route.page === 'operations' }]
      : []),
  ];

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
                {moreLinks.map((link) => (
                  <Anchor key={link.href} href={link.href} fw={link.current ? 700 : 400} visibleFrom="sm">
                    {link.label}
                  </Anchor>
                ))}
                {/* A phone's header has room for two links: the others are in a menu. */}
                <Box hiddenFrom="sm">
                  <Menu position="bottom-start">
                    <Menu.Target>
                      <Button variant="subtle" size="compact-sm">
                        More
                      </Button>
                    </Menu.Target>
                    <Menu.Dropdown>
                      {moreLinks.map((link) => (
                        <Menu.Item key={link.href} component="a" href={link.href} fw={link.current ? 700 : 400}>
                          {link.label}
                        </Menu.Item>
                      ))}
                    </Menu.Dropdown>
                  </Menu>
                </Box>
              </Group>
            </nav>
          </Group>
          <Button variant="subtle" size="compact-sm" onClick={signOut}>
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <ErrorAlert message={principalError} />
        {route.page === 'agents' && <AgentsPage api={api} principal={principal} />}
        {route.page === 'goals' && <GoalsPage api={api} />}
        {route.page === 'goal' && <GoalPage key={route.goalId} api={api} goalId={route.goalId} />}
        {route.page === 'keys' && <KeysPage api={api} principal={principal} onSignedOut={signOut} />}
        {route.page === 'operations' && <OperationsPage api={api} />}
      </AppShell.Main>
    </AppShell>
  );
}
