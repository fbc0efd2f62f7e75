import { Alert } from '@mantine/core';

/** Why the last action or load failed, in the gateway's words; an alert, so a screen reader says it at once. */
export function ErrorAlert({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert">
      {message}
    </Alert>
  );
}
