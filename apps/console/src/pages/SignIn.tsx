import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Container, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { ApiError, ConsoleApi } from '../api';

/** The API key of an account (`npm start` prints the local admin's), checked with the gateway before it is kept. */
export function SignIn({ initialKey, onSignedIn }: { initialKey?: string; onSignedIn: (api: ConsoleApi) => void }) {
  const [key, setKey] = useState(initialKey ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const signIn = async (candidate: string) => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await ConsoleApi.signIn(candidate));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The gateway could not be reached.');
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (initialKey) void signIn(initialKey);
    // Only the key the page was opened with signs in by itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void signIn(key);
  };

  return (
    <Container size="xs" py="xl">
      <form onSubmit={submit}>
        <Stack>
          <Title order={1}>IoA console</Title>
          <Text c="dimmed">Sign in with an API key of your account.</Text>
          <PasswordInput
            label="API key"
            value={key}
            onChange={(event) => setKey(event.currentTarget.value)}
            required
            autoComplete="off"
          />
          {error && (
            <Alert color="red" title="Not signed in" role="alert">
              {error}
            </Alert>
          )}
          <Button type="submit" loading={busy}>
            Sign in
          </Button>
        </Stack>
      </form>
    </Container>
  );
}
