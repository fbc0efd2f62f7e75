import 'reflect-metadata';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { ALL_CONTRACTS } from '@ioa/contracts';
import { CONTRACT_DOC, contractArtefacts, SCHEMA_DIR } from './contract-artefacts.js';

/**
 * `npm run contract:generate` writes the published contract artefacts; `npm run contract:check` (CI) fails when
 * the committed ones differ from what the current contract generates.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const check = process.argv.includes('--check');

const read = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : undefined);
const { version } = JSON.parse(read('package.json') ?? '{}') as { version: string };
const generated = contractArtefacts(ALL_CONTRACTS, { version, contractDoc: read(CONTRACT_DOC) ?? '# The contract\n' });

// Written as prettier would write them, so `format:check` and `contract:check` never disagree about a file.
const files = new Map<string, string>();
for (const [path, content] of generated) {
  const filepath = join(root, path);
  files.set(path, await format(content, { ...(await resolveConfig(filepath)), filepath }));
}

// Schema files of classes that no longer exist are stale too.
const schemaDir = join(root, SCHEMA_DIR);
const obsolete = existsSync(schemaDir)
  ? readdirSync(schemaDir)
      .map((file) => `${SCHEMA_DIR}/${file}`)
      .filter((path) => !files.has(path))
  : [];
const changed = [...files].filter(([path, content]) => read(path) !== content).map(([path]) => path);

if (check) {
  if (changed.length === 0 && obsolete.length === 0) {
    console.log(`contract artefacts are up to date (${files.size} files)`);
  } else {
    for (const path of changed) console.error(`stale:    ${path}`);
    for (const path of obsolete) console.error(`obsolete: ${path}`);
    console.error('\nThe contract changed but its published artefacts did not: run `npm run contract:generate`.');
    process.exitCode = 1;
  }
} else {
  for (const path of changed) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), files.get(path) as string);
  }
  for (const path of obsolete) rmSync(join(root, path));
  console.log(
    `contract artefacts: ${changed.length} written, ${obsolete.length} removed, ${files.size - changed.length} unchanged`,
  );
}
