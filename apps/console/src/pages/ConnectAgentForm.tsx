import { useState, type FormEvent } from 'react';
import { Button, Fieldset, Group, Paper, PasswordInput, Radio, Stack, Textarea, TextInput, Title } from '@mantine/core';
import type { AdaptedAgentV1, AdaptedEndpointKind } from '@ioa/contracts';
import { errorMessage, type ConsoleApi } from '../api';
import {
  EMPTY_CONNECT_AGENT,
  KIND_FORMS,
  newSigningSecret,
  registrationOf,
  type ConnectAgentValues,
} from '../connect-agent';
import { ErrorAlert } from './ErrorAlert';

/**
 * Brings an agent someone else built into the network: an A2A agent or an MCP server from its URL alone (its card
 * or tools describe it), an OpenAI-compatible model or a webhook described here. The adapters service checks that
 * the endpoint answers before the agent is registered; what it refuses is shown with its reason.
 */
export function ConnectAgentForm({
  api,
  owner,
  onConnected,
}: {
  api: ConsoleApi;
  owner: string;
  onConnected: (connected: AdaptedAgentV1) => void;
}) {
  const [values, setValues] = useState<ConnectAgentValues>(EMPTY_CONNECT_AGENT);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const form = KIND_FORMS[values.kind];
  const set = (field: keyof ConnectAgentValues) => (value: string) => setValues({ ...values, [field]: value });
  const input =
    (field: keyof ConnectAgentValues) => (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      set(field)(event.currentTarget.value);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onConnected(await api.connectAgent(registrationOf(values, owner)));
      setValues({ ...EMPTY_CONNECT_AGENT, kind: values.kind });
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md" component="section" aria-label="Connect an agent">
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <Title order={3} size="h5">
            Connect an agent
          </Title>
          <Radio.Group
            label="Endpoint kind"
            value={values.kind}
            onChange={(kind) => setValues({ ...values, kind: kind as AdaptedEndpointKind, credential: '' })}
          >
            <Group gap="md" mt={4}>
              {(Object.keys(KIND_FORMS) as AdaptedEndpointKind[]).map((kind) => (
                <Radio key={kind} value={kind} label={KIND_FORMS[kind].label} />
              ))}
            </Group>
          </Radio.Group>
          <TextInput
            label={form.urlLabel}
            description={form.urlHint}
            inputMode="url"
            value={values.url}
            onChange={input('url')}
            required
          />
          {form.asksForModel && (
            <>
              <TextInput label="Model" value={values.model} onChange={input('model')} required />
              <Textarea
                label="System prompt"
                description="What makes the model this agent."
                autosize
                minRows={2}
                value={values.systemPrompt}
                onChange={input('systemPrompt')}
              />
            </>
          )}
          {form.credential && (
            <Group align="flex-end" wrap="nowrap">
              <PasswordInput
                style={{ flex: 1 }}
                label={form.credential.label}
                description={`${form.credential.hint} Kept by the adapters service and never shown again.`}
                value={values.credential}
                onChange={input('credential')}
                required={form.credential.required}
              />
              {form.credential.field === 'secret' && (
                <Button variant="default" onClick={() => set('credential')(newSigningSecret())}>
                  Generate
                </Button>
              )}
            </Group>
          )}
          <Fieldset
            legend={form.describesItself ? 'Card (optional: what the agent says about itself is used)' : 'Card'}
          >
            <Stack gap="sm">
              <TextInput
                label="Name"
                description="Lowercase letters, digits, “-” or “_”; unique on the network."
                value={values.name}
                onChange={input('name')}
                required={!form.describesItself}
              />
              <Textarea
                label="Description"
                autosize
                minRows={2}
                value={values.description}
                onChange={input('description')}
                required={!form.describesItself}
              />
              <Textarea
                label="Skills"
                description="One per line: “Name: what it does”. Discovery finds the agent by these."
                autosize
                minRows={2}
                value={values.skills}
                onChange={input('skills')}
                required={!form.describesItself}
              />
            </Stack>
          </Fieldset>
          <Group>
            <Button type="submit" loading={busy}>
              Connect agent
            </Button>
          </Group>
          <ErrorAlert message={error} />
        </Stack>
      </form>
    </Paper>
  );
}
