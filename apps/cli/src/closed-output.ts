/**
 * Output whose reader went away (`az train | head -1`): writing to a closed pipe fails with EPIPE,
 * which Node reports as an 'error' event that, unhandled, ends the process with a stack trace. Here
 * such errors are expected: the rest of that stream's output is dropped, and `onClosed` decides what
 * the command does (a training run continues, since its results go to its run directory; an
 * interactive game stops, since nobody can see it). Other stream errors still throw.
 */
export function onOutputClosed(stream: NodeJS.WriteStream, onClosed: () => void): void {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED' && err.code !== 'ERR_STREAM_WRITE_AFTER_END') throw err;
    if (closed) return;
    closed = true;
    onClosed();
  });
}
