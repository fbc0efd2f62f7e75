import { useState } from 'react';
import { Button, Group } from '@mantine/core';

/**
 * A button for something that cannot be undone (removing an agent, revoking a key, publishing an event again): the
 * first press only asks, a second button does it, "Keep" steps back. Each button's accessible name names the thing
 * ("Remove weather-oracle", "Confirm removing weather-oracle"), as a row of them would otherwise read alike.
 */
export function ConfirmedButton({
  label,
  confirmLabel,
  accessibleName,
  confirmAccessibleName,
  color,
  onConfirm,
}: {
  /** What the first button says ("Remove"). */
  label: string;
  /** What the button that acts says ("Remove from the network"). */
  confirmLabel: string;
  accessibleName: string;
  confirmAccessibleName: string;
  color?: string;
  /**
   * Does it once confirmed, and says whether it was done. The page shows why it was not; the question then stays
   * open for a retry.
   */
  onConfirm: () => Promise<boolean>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);

  if (!asking) {
    return (
      <Button
        size="compact-sm"
        color={color}
        variant="light"
        aria-label={accessibleName}
        onClick={() => setAsking(true)}
      >
        {label}
      </Button>
    );
  }
  const confirm = async () => {
    setBusy(true);
    const done = await onConfirm();
    setBusy(false);
    if (done) setAsking(false);
  };
  return (
    <Group gap="xs" wrap="nowrap">
      <Button
        size="compact-sm"
        color={color}
        loading={busy}
        aria-label={confirmAccessibleName}
        onClick={() => void confirm()}
      >
        {confirmLabel}
      </Button>
      <Button size="compact-sm" variant="default" onClick={() => setAsking(false)}>
        Keep
      </Button>
    </Group>
  );
}
