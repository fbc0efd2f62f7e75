import { Algorithms, createUser, encodeUser } from '@nats-io/jwt';
import { credsText, readKeyPair, trustLayout } from '@ioa/trust';

/**
 * A test-only issuer of agent credentials: signs a user JWT named by the agent id with the IOA account's scoped
 * signing key for role "agent", as the registry's identity authority does, so a test can connect as an agent without
 * going through the registry. The JWT carries no permissions of its own: the broker applies the key's template.
 */
export async function issueTestAgentCreds(trustRoot: string, agentId: string): Promise<string> {
  const layout = trustLayout(trustRoot);
  const signing = readKeyPair(layout.agentSigningSeed);
  const account = readKeyPair(layout.ioaAccountSeed).getPublicKey();
  const user = createUser();
  const jwt = await encodeUser(
    agentId,
    user,
    account,
    {},
    { scopedUser: true, signer: signing, algorithm: Algorithms.v2 },
  );
  return credsText(jwt, user);
}
