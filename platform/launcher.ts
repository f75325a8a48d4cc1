/**
 * A process forked by a launcher (npm run dev, the tests) stops as on SIGTERM when the launcher dies, even
 * by SIGKILL: the IPC channel closes then. The channel is unref'd so listening never keeps the process alive.
 */
export function stopWhenLauncherGone(): void {
  if (!process.send) return;
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel?.unref();
}
