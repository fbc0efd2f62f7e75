#!/usr/bin/env node
// Makes a fresh clone runnable: every top-level command (`npm start`, `npm run demo`, `npm test`, ...) runs this
// first. It installs what is missing and rebuilds what is stale, and does nothing when all is in place.
//
// Plain JavaScript with Node built-ins only, on purpose: it runs before `node_modules` exists.
//
//   node deploy/local/bootstrap.mjs [--nats=always|local] [--build]
//
//   --nats=always  a nats-server binary is required (tests start their own servers)
//   --nats=local   required unless NATS_URL points at an external NATS (npm start / npm run demo)
//   --build        compile to dist/ when dist is missing or older than the sources
//   --chromium     Debian's chromium is required (the web console's browser tests, `npm test`)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const natsMode = args.find((arg) => arg.startsWith('--nats='))?.slice('--nats='.length);
const wantsBuild = args.includes('--build');
const wantsChromium = args.includes('--chromium');

/** Written after a successful build; dist is stale when a source file is newer than it. */
const BUILD_STAMP = join(root, 'dist', '.bootstrap-build-stamp');
const SOURCE_DIRS = ['apps', 'libs', 'deploy'];
const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json'];
const NATS_CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

function say(message) {
  process.stderr.write(`[bootstrap] ${message}\n`);
}

function fail(message) {
  process.stderr.write(`\n[bootstrap] ERROR: ${message}\n\n`);
  process.exit(1);
}

function run(command, commandArgs, what) {
  say(`${what}: ${command} ${commandArgs.join(' ')}`);
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) return { ok: false, reason: result.error.message };
  if (result.status !== 0) return { ok: false, reason: `exit code ${result.status ?? result.signal}` };
  return { ok: true };
}

// ---------------------------------------------------------------------------------------------------------------
// node_modules

/**
 * npm writes node_modules/.package-lock.json on every install; comparing it with package-lock.json is how npm
 * itself decides whether the tree matches the lockfile. Platform-specific optional packages are legitimately
 * absent, so only non-optional ones must be present.
 */
function nodeModulesProblem() {
  const hiddenLock = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(hiddenLock)) return 'node_modules is missing';
  let wanted;
  let installed;
  try {
    wanted = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages ?? {};
    installed = JSON.parse(readFileSync(hiddenLock, 'utf8')).packages ?? {};
  } catch (error) {
    return `cannot read the lockfiles (${error.message})`;
  }
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || !path.startsWith('node_modules/')) continue;
    const present = installed[path];
    if (!present) {
      if (entry.optional || entry.peer) continue;
      return `${path.slice('node_modules/'.length)} is not installed`;
    }
    if (present.version !== entry.version) {
      return `${path.slice('node_modules/'.length)} is ${present.version}, package-lock.json wants ${entry.version}`;
    }
  }
  for (const path of Object.keys(installed)) {
    if (!(path in wanted)) return `${path.slice('node_modules/'.length)} is installed but not in package-lock.json`;
  }
  return undefined;
}

function ensureNodeModules() {
  const problem = nodeModulesProblem();
  if (!problem) return;
  say(`node modules out of date (${problem})`);
  if (run('npm', ['ci', '--no-audit', '--no-fund'], 'installing node modules').ok) return;
  // npm 11 writes lockfiles without other platforms' optional packages (e.g. @unrs/resolver-binding-darwin-*)
  // and then its own `npm ci` rejects them as out of sync (npm/cli#4828, #8320). `npm install` installs the
  // same locked versions; the lockfile is put back byte for byte so the work tree stays clean.
  say('npm ci refused the lockfile; installing the locked versions with npm install instead');
  const lockfile = join(root, 'package-lock.json');
  const locked = readFileSync(lockfile);
  const result = run('npm', ['install', '--no-audit', '--no-fund'], 'installing node modules');
  if (!readFileSync(lockfile).equals(locked)) writeFileSync(lockfile, locked);
  if (!result.ok) fail(`npm install failed (${result.reason}). Check that the npm registry is reachable.`);
  const remaining = nodeModulesProblem();
  if (remaining) fail(`node_modules still differs from package-lock.json after installing: ${remaining}`);
}

// ---------------------------------------------------------------------------------------------------------------
// nats-server

function findNatsServer() {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv) {
    if (existsSync(fromEnv)) return fromEnv;
    fail(`NATS_SERVER_BIN is set to ${fromEnv}, which does not exist.`);
  }
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nats-server'));
  return [...NATS_CANDIDATES, ...onPath].find((candidate) => existsSync(candidate));
}

function ensureNatsServer() {
  if (natsMode === undefined) return;
  if (natsMode === 'local' && process.env.NATS_URL) return; // external NATS: no local server needed
  if (findNatsServer()) return;
  say('nats-server is not installed; installing the Debian package');
  const manual =
    'Install it yourself (`sudo apt-get install nats-server`, or download it from the NATS releases), ' +
    'or set NATS_SERVER_BIN to the binary, or NATS_URL to an external NATS with JetStream.';
  installDebianPackage('nats-server', manual);
  if (!findNatsServer()) fail(`nats-server was installed but cannot be found. ${manual}`);
}

/** Installs a Debian package (as root, non-interactively: CI has no stdin), or fails saying how to do it by hand. */
function installDebianPackage(name, manual) {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    fail(`${name} is missing and installing it needs root. ${manual}`);
  }
  if (!existsSync('/usr/bin/apt-get')) fail(`${name} is missing and this machine has no apt-get. ${manual}`);
  const update = run('apt-get', ['update'], 'refreshing package lists');
  if (!update.ok) fail(`apt-get update failed (${update.reason}). ${manual}`);
  const install = run('apt-get', ['install', '-y', '--no-install-recommends', name], 'installing');
  if (!install.ok) fail(`apt-get install ${name} failed (${install.reason}). ${manual}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Chromium (the web console's browser tests drive Debian's chromium with playwright-core)

function ensureChromium() {
  if (!wantsChromium) return;
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(path)) return;
  say('chromium is not installed (the web console tests need it); installing the Debian package');
  installDebianPackage(
    'chromium',
    'Install it yourself (`sudo apt-get install chromium`) or set CHROMIUM_PATH to a Chromium or Chrome binary.',
  );
  if (!existsSync(path)) fail(`chromium was installed but ${path} does not exist; set CHROMIUM_PATH.`);
}

// ---------------------------------------------------------------------------------------------------------------
// build

function newestSource() {
  let newest = { time: 0, path: '' };
  const consider = (path) => {
    const time = statSync(path).mtimeMs;
    if (time > newest.time) newest = { time, path };
  };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // Mirrors tsconfig.build.json's excludes: tests and test support are not compiled.
      if (entry.name === 'node_modules' || entry.name === 'testing') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !/\.((e2e-)?spec|testing)\.ts$/.test(entry.name)) consider(path);
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of BUILD_INPUTS) if (existsSync(join(root, file))) consider(join(root, file));
  return newest;
}

/** Entry points that must exist after a build: every app's main and the local launchers. */
function missingOutputs() {
  const apps = existsSync(join(root, 'apps'))
    ? readdirSync(join(root, 'apps')).filter((name) => existsSync(join(root, 'apps', name, 'src', 'main.ts')))
    : [];
  const expected = [
    ...apps.map((name) => join('dist', 'apps', name, 'src', 'main.js')),
    join('dist', 'deploy', 'local', 'start.js'),
    join('dist', 'deploy', 'local', 'demo.js'),
    join('dist', 'apps', 'console', 'index.html'),
  ];
  return expected.filter((path) => !existsSync(join(root, path)));
}

function ensureBuild() {
  if (!wantsBuild) return;
  const missing = missingOutputs();
  // A plain `npm run build` leaves no stamp, but tsc rewrites its build info whenever it compiled something.
  const stamp = Math.max(
    ...[BUILD_STAMP, join(root, 'dist', '.tsbuildinfo')].map((path) => (existsSync(path) ? statSync(path).mtimeMs : 0)),
  );
  const newest = newestSource();
  if (missing.length === 0 && newest.time <= stamp) return;
  if (missing.length > 0) {
    say(`dist is incomplete (${missing[0]} missing): building`);
    // An incremental build trusts its .tsbuildinfo and would not re-emit deleted files.
    rmSync(join(root, 'dist', '.tsbuildinfo'), { force: true });
  } else {
    say(`sources changed since the last build (${relative(root, newest.path)}): building`);
  }
  const startedAt = new Date();
  const result = run('npm', ['run', '--silent', 'build'], 'compiling');
  if (!result.ok) fail(`the build failed (${result.reason}); see the compiler output above.`);
  mkdirSync(dirname(BUILD_STAMP), { recursive: true });
  writeFileSync(BUILD_STAMP, `${startedAt.toISOString()}\n`);
  // Dated to the start of the build, so a file saved while it compiled still counts as newer.
  utimesSync(BUILD_STAMP, startedAt, startedAt);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  fail(`Node.js ${process.versions.node} is too old: this project needs Node.js 20.19 or newer.`);
}
ensureNodeModules();
ensureNatsServer();
ensureChromium();
ensureBuild();
