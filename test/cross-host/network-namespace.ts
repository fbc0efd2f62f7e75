import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Another host, as far as networking goes: a network namespace with its own interfaces and loopback, joined to this
 * one by a veth pair. A process started in it (`exec`) reaches this machine only through the link, at `hostAddress`;
 * `cut()` takes the link down, as a pulled cable or a dead Wi-Fi would.
 */
export interface NetworkNamespace {
  name: string;
  /** This machine's end of the link: what the agent in the namespace dials. */
  hostAddress: string;
  /** The namespace's end. */
  agentAddress: string;
  /** The command prefix that runs a program inside the namespace. */
  exec: string[];
  cut(): Promise<void>;
  remove(): Promise<void>;
}

async function ip(...args: string[]): Promise<void> {
  await run('ip', args);
}

/**
 * Creates the namespace and the link. Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), which CI has; anywhere else it
 * throws saying so, rather than letting the cross-host test pass without crossing anything.
 */
export async function createNetworkNamespace(): Promise<NetworkNamespace> {
  const suffix = randomInt(0x10000, 0xfffff).toString(16);
  const name = `ioa-xhost-${suffix}`;
  const hostEnd = `ioah${suffix}`;
  const agentEnd = `ioaa${suffix}`;
  const subnet = `10.${randomInt(200, 250)}.${randomInt(1, 254)}`;
  const hostAddress = `${subnet}.1`;
  const agentAddress = `${subnet}.2`;
  try {
    await ip('netns', 'add', name);
  } catch (error) {
    throw new Error(
      `cannot create a network namespace (${error instanceof Error ? error.message.trim() : String(error)}): the ` +
        'cross-host test needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN and the iproute2 package (`ip`), as CI has',
      { cause: error },
    );
  }
  const remove = async () => {
    // Deleting the namespace destroys its end of the veth pair, and with it the host's end.
    await ip('netns', 'delete', name).catch(() => undefined);
    await ip('link', 'delete', hostEnd).catch(() => undefined);
  };
  try {
    await ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', agentEnd);
    await ip('link', 'set', agentEnd, 'netns', name);
    await ip('addr', 'add', `${hostAddress}/24`, 'dev', hostEnd);
    await ip('link', 'set', hostEnd, 'up');
    await ip('netns', 'exec', name, 'ip', 'addr', 'add', `${agentAddress}/24`, 'dev', agentEnd);
    await ip('netns', 'exec', name, 'ip', 'link', 'set', agentEnd, 'up');
    await ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    await remove();
    throw new Error(`cannot set up the veth link of ${name}: ${String(error)}`, { cause: error });
  }
  return {
    name,
    hostAddress,
    agentAddress,
    exec: ['ip', 'netns', 'exec', name],
    cut: () => ip('link', 'set', hostEnd, 'down'),
    remove,
  };
}

/** Whether a TCP connection from inside the namespace to `address:port` succeeds (bash's /dev/tcp, 2 s at most). */
export async function canConnectFrom(namespace: NetworkNamespace, address: string, port: number): Promise<boolean> {
  try {
    await run('ip', [
      'netns',
      'exec',
      namespace.name,
      'timeout',
      '2',
      'bash',
      '-c',
      `exec 3<>/dev/tcp/${address}/${port}`,
    ]);
    return true;
  } catch {
    return false;
  }
}
