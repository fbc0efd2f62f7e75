import { useCallback, useEffect, useState, type FormEvent } from 'react';
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { errorMessage, type ApiKeyItem, type ConsoleApi, type Principal } from '../api';
import { ConfirmedButton } from './ConfirmedButton';
import { ErrorAlert } from './ErrorAlert';

/** The gateway's default and longest lifetimes (`CreateApiKeyRequestDto`), so the form offers what it accepts. */
const DEFAULT_LIFETIME_DAYS = 90;
const MAX_LIFETIME_DAYS = 730;

function when(timestamp: string | null): string {
  return timestamp ? new Date(timestamp).toLocaleString() : '—';
}

/** What a key can do now: revoked and expired keys are refused by the gateway. */
function stateOf(key: ApiKeyItem, now: number): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

/**
 * The signed-in account's API keys: which exist and when each was last used, a new one (its text shown this once),
 * and revoking one. Revoking the key this console signed in with signs the console out.
 */
export function KeysPage({
  api,
  principal,
  onSignedOut,
}: {
  api: ConsoleApi;
  /** The signed-in account (undefined until the console knows it). */
  principal: Principal | undefined;
  onSignedOut: () => void;
}) {
  const [keys, setKeys] = useState<ApiKeyItem[]>();
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<ApiKeyItem & { key: string }>();

  const load = useCallback(async () => {
    if (!principal) return;
    try {
      setKeys((await api.apiKeys(principal.accountId)).items);
      setError(undefined);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }, [api, principal]);

  useEffect(() => {
    void load();
  }, [load]);

  const revoke = async (key: ApiKeyItem): Promise<boolean> => {
    try {
      await api.revokeApiKey(key.accountId, key.id);
      if (api.isSignedInWith(key)) onSignedOut();
      else await load();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    }
  };

  const now = Date.now();
  return (
    <Stack>
      <Title order={2}>API keys</Title>
      {principal && (
        <Text>
          Account <Code>{principal.accountId}</Code>, signed in as {principal.role}. A key acts for this account in the
          REST API, the CLI and this console.
        </Text>
      )}
      <ErrorAlert message={error} />
      {principal && (
        <NewKeyForm
          api={api}
          principal={principal}
          onCreated={(key) => {
            setCreated(key);
            void load();
          }}
        />
      )}
      {created && (
        <Alert color="green" title={`Key “${created.name}” created`} role="status">
          <Stack gap="xs">
            <Text size="sm">Copy it now: only its hash is kept, so it is not shown again.</Text>
            <Group gap="xs" wrap="nowrap">
              <Code aria-label="The new key" style={{ wordBreak: 'break-all' }}>
                {created.key}
              </Code>
              <CopyButton value={created.key}>
                {({ copied, copy }) => (
                  <Button size="compact-sm" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      {keys && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label="API keys" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Starts with</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.map((key) => {
                const state = stateOf(key, now);
                const current = api.isSignedInWith(key);
                return (
                  <Table.Tr key={key.id}>
                    <Table.Td>
                      {key.name}
                      {current && (
                        <Text span size="sm" c="dimmed">
                          {' '}
                          (this console)
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Code>{key.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>{key.role}</Table.Td>
                    <Table.Td>
                      <Badge color={state === 'active' ? 'green' : 'gray'} aria-label={`State of ${key.name}`}>
                        {state}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{when(key.createdAt)}</Table.Td>
                    <Table.Td>{when(key.expiresAt)}</Table.Td>
                    <Table.Td>{when(key.lastUsedAt)}</Table.Td>
                    <Table.Td>
                      {state === 'active' && (
                        <ConfirmedButton
                          label="Revoke"
                          confirmLabel={current ? 'Revoke and sign out' : 'Confirm'}
                          accessibleName={`Revoke ${key.name}`}
                          confirmAccessibleName={`Confirm revoking ${key.name}`}
                          color="red"
                          onConfirm={() => revoke(key)}
                        />
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

function NewKeyForm({
  api,
  principal,
  onCreated,
}: {
  api: ConsoleApi;
  principal: Principal;
  onCreated: (key: ApiKeyItem & { key: string }) => void;
}) {
  const [name, setName] = useState('');
  const [days, setDays] = useState<number | string>(DEFAULT_LIFETIME_DAYS);
  const [role, setRole] = useState<'admin' | 'member'>('member');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onCreated(
        await api.createApiKey(principal.accountId, {
          name,
          role,
          expiresInDays: typeof days === 'number' ? days : undefined,
        }),
      );
      setName('');
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md" component="section" aria-label="Create an API key">
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <Title order={3} size="h5">
            New key
          </Title>
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="Name"
              description="What the key is for, to tell keys apart."
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              required
            />
            <NumberInput
              label="Expires in (days)"
              min={1}
              max={MAX_LIFETIME_DAYS}
              value={days}
              onChange={setDays}
              w={160}
            />
            {principal.role === 'admin' && (
              <Select
                label="Role"
                data={['member', 'admin']}
                value={role}
                onChange={(value) => setRole(value === 'admin' ? 'admin' : 'member')}
                allowDeselect={false}
                w={140}
              />
            )}
            <Button type="submit" loading={busy}>
              Create key
            </Button>
          </Group>
          <ErrorAlert message={error} />
        </Stack>
      </form>
    </Paper>
  );
}
