/**
 * Splits the multiplexed stream of a non-TTY exec (8-byte frame headers, docker-modem's
 * `demuxStream`) into stdout and stderr, with backpressure: the socket pauses while a reader
 * lags, so a command printing 100 MB never piles up in host memory.
 */
import { PassThrough, type Duplex } from "node:stream";

/** What demultiplexing needs of docker-modem (dockerode types its `modem` as `any`). */
export interface Demuxer {
  demuxStream(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void;
}

export function demultiplex(socket: Duplex, modem: Demuxer): { stdout: PassThrough; stderr: PassThrough } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  // A reader that cancelled its stream destroys the PassThrough; later frames for it are dropped,
  // not raised as an unhandled 'error'.
  stdout.on("error", () => {});
  stderr.on("error", () => {});
  modem.demuxStream(socket, stdout, stderr);

  const full = (output: PassThrough) => !output.destroyed && output.writableNeedDrain;
  const resumeIfDrained = () => {
    if (!full(stdout) && !full(stderr)) socket.resume();
  };
  // Registered after demuxStream's own listener, so it sees the outputs after each chunk was written.
  socket.on("data", () => {
    if (full(stdout) || full(stderr)) socket.pause();
  });
  for (const output of [stdout, stderr]) {
    output.on("drain", resumeIfDrained);
    output.on("close", resumeIfDrained);
  }
  const end = () => {
    stdout.end();
    stderr.end();
  };
  socket.once("end", end);
  socket.once("close", end);
  return { stdout, stderr };
}
