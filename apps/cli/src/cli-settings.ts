import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where `npm start` serves the gateway unless GATEWAY_PORT says otherwise (deploy/local/stack.ts). */
export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';
/** The file `npm start` writes the local admin's API key to, under its data directory. */
export const ADMIN_API_KEY_FILE = 'admin-api-key';

/** What every command needs to reach the gateway. */
export interface CliSettings {
  gatewayUrl: string;
  apiKey: string;
}

/** The CLI's own environment: the only variables it reads, in one place. */
export interface CliEnvironment {
  IOA_GATEWAY_URL?: string;
  IOA_API_KEY?: string;
  IOA_DATA_DIR?: string;
}

/** A setting the CLI cannot work without is missing or wrong: told to the person, exit code 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/**
 * The gateway and API key to use: `--gateway`, else IOA_GATEWAY_URL, else the local stack; `--api-key`, else
 * IOA_API_KEY, else the local stack's key file (`<IOA_DATA_DIR or ./.data>/admin-api-key`, which `npm start` writes).
 */
export function resolveSettings(
  flags: { gateway?: string; apiKey?: string },
  environment: CliEnvironment,
  workingDirectory: string,
): CliSettings {
  const gatewayUrl = (flags.gateway || environment.IOA_GATEWAY_URL || DEFAULT_GATEWAY_URL).replace(/\/+$/, '');
  try {
    const url = new URL(gatewayUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new CliUsageError(`--gateway must be an http(s) URL, got "${gatewayUrl}"`);
  }
  // `||`: an empty variable (IOA_API_KEY=) counts as unset, as shells and CI templates often leave them.
  const apiKey = flags.apiKey || environment.IOA_API_KEY || readLocalKey(environment, workingDirectory);
  return { gatewayUrl, apiKey };
}

function readLocalKey(environment: CliEnvironment, workingDirectory: string): string {
  const dataDir = resolve(workingDirectory, environment.IOA_DATA_DIR || '.data');
  const file = join(dataDir, ADMIN_API_KEY_FILE);
  try {
    const key = readFileSync(file, 'utf8').trim();
    if (key) return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  throw new CliUsageError(
    `no API key: pass --api-key, set IOA_API_KEY, or start the local stack (npm start), which writes ${file}`,
  );
}
