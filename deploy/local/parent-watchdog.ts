// Preloaded into every service the local stack starts (`node --import`): when the launcher disappears without
// stopping its children (kill -9, a crashed terminal), the service notices that it was re-parented and shuts down
// through its normal SIGTERM path instead of lingering as an orphan holding ports and database connections.
const launcher = process.ppid;

setInterval(() => {
  if (process.ppid !== launcher) process.kill(process.pid, 'SIGTERM');
}, 1000).unref();

export {};
