/**
 * A closed pipe ends tmkit quietly (`tmkit audit | head -1`): Node ignores SIGPIPE, so a write to a pipe whose
 * reader is gone raises EPIPE as an 'error' event on the stream, which unhandled is a stack trace and exit 1.
 * The reader has what it wanted, so the command is done: a command that stops cleanly on SIGTERM (`serve`,
 * `status --watch`) is stopped as if signalled; any other exits 0 at once. EPIPE on stderr is ignored (there
 * is nowhere left to say anything). Other stream errors are left as they were.
 */
export function endQuietlyOnClosedPipe(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): void {
  let ending = false;
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    if (ending) return;
    ending = true;
    if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
    else process.exit(0);
  });
  stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
