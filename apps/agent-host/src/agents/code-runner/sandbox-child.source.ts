/**
 * The program the sandboxed `node` child runs (passed with `-e`, so the child needs no file access at all). It
 * reads the task's JavaScript from stdin and runs it inside a `vm` context that has no `require`, `process`,
 * `import()`, `eval` or `Function`-from-string, only `console` and timers.
 *
 * Layers, from the outside in (see `javascript-sandbox.ts` for the flags):
 * 1. a separate process with an empty environment, kernel limits on its whole memory (RLIMIT_DATA) and CPU time
 *    (RLIMIT_CPU), a V8 heap cap, an output cap and a wall-clock kill;
 * 2. Node 20's permission model (`--experimental-permission` with nothing allowed): no file reads or writes, no
 *    child processes, no worker threads, no native addons;
 * 3. `--disallow-code-generation-from-strings`, so code that reaches a host-realm function cannot turn a string
 *    into code (the classic `this.constructor.constructor('return process')()` escape from `vm`);
 * 4. network entry points of the host realm replaced before the task runs (Node 20's permission model does not
 *    cover the network): `net`, `tls`, `dgram`, `dns`, `http(s)`, `http2`, `fetch`, `process.binding`.
 * `vm` alone is not a security boundary; together these make reaching the network take a Node or V8 bug. For
 * hostile code, run agent-host in a container without network instead (documented in the README of the app).
 *
 * Plain JavaScript (CommonJS, as `-e` runs it); kept in a string so the build needs no copy step.
 */
export const SANDBOX_CHILD_SOURCE = String.raw`
'use strict';
const vm = require('node:vm');
const util = require('node:util');
const stdin = process.stdin;
const stdout = process.stdout;
const stderr = process.stderr;

// Its own wall clock (argv[1], set by the parent): the parent kills the child on time, but a parent that was itself
// killed cannot, and an idle child would then live on. unref: it never keeps a finished task alive. (A busy child
// is stopped by RLIMIT_CPU instead, since a busy loop never lets this timer fire.)
const ownDeadlineMs = Number(process.argv[1]);
if (ownDeadlineMs > 0) setTimeout(() => process.exit(124), ownDeadlineMs).unref();

function deny(what) {
  return function denied() {
    const error = new Error('Network access is disabled in the code runner (' + what + ')');
    error.code = 'ERR_ACCESS_DENIED';
    throw error;
  };
}
const net = require('node:net');
net.connect = net.createConnection = deny('net.connect');
net.Socket.prototype.connect = deny('net.Socket.connect');
net.createServer = deny('net.createServer');
net.Server.prototype.listen = deny('net.Server.listen');
require('node:tls').connect = deny('tls.connect');
require('node:dgram').createSocket = deny('dgram.createSocket');
const dns = require('node:dns');
for (const name of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'reverse']) {
  dns[name] = deny('dns.' + name);
  dns.promises[name] = deny('dns.promises.' + name);
}
for (const name of ['node:http', 'node:https']) {
  const module = require(name);
  module.request = module.get = deny(name + '.request');
}
require('node:http2').connect = deny('http2.connect');
globalThis.fetch = deny('fetch');
process.binding = deny('process.binding');
process.dlopen = deny('process.dlopen');
if (process.getBuiltinModule) process.getBuiltinModule = deny('process.getBuiltinModule');

let wroteStdout = false;
function write(stream, args) {
  if (stream === stdout) wroteStdout = true;
  stream.write(util.format.apply(null, args) + '\n');
}

function report(error) {
  const text = error && error.stack ? String(error.stack) : String(error);
  // Keep the task's own frames; the sandbox's frames are noise to the reader.
  const lines = text.split('\n').filter((line, index) => index === 0 || !/^\s+at /.test(line) || line.includes('task.js'));
  stderr.write(lines.join('\n') + '\n');
  process.exitCode = 1;
}

let source = '';
stdin.setEncoding('utf8');
stdin.on('data', (chunk) => { source += chunk; });
stdin.on('end', () => {
  const context = vm.createContext({}, { name: 'task', codeGeneration: { strings: false, wasm: false } });
  const install = vm.runInContext(
    '(function (write, timers) {' +
      '  const out = (...args) => write(1, args); const err = (...args) => write(2, args);' +
      '  globalThis.console = Object.freeze({ log: out, info: out, debug: out, warn: err, error: err });' +
      '  Object.assign(globalThis, timers);' +
      '})',
    context,
  );
  install(
    (stream, args) => write(stream === 1 ? stdout : stderr, args),
    { setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask },
  );
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
  try {
    const result = vm.runInContext(source, context, { filename: 'task.js' });
    // Like a REPL: code that prints nothing shows the value of its last expression ("2 ** 10" → 1024).
    if (result && typeof result.then === 'function') {
      result.then((value) => { if (value !== undefined && !wroteStdout) write(stdout, [value]); }, report);
    } else if (result !== undefined && !wroteStdout) {
      write(stdout, [result]);
    }
  } catch (error) {
    report(error);
  }
});
`;
