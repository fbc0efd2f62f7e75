#!/usr/bin/env node
// The `ioa` command (package.json "bin"): runs the compiled CLI. `npm run build` compiles it to dist/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'dist',
  'apps',
  'cli',
  'src',
  'main.js',
);
if (!existsSync(compiled)) {
  process.stderr.write(`ioa: ${compiled} does not exist yet; run "npm run build" first\n`);
  process.exit(2);
}
await import(pathToFileURL(compiled).href);
