/**
 * A Unix-socket proxy in front of the Docker engine that can stop passing bytes on demand: a hung
 * engine, without hanging the real one that other suites share.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import { Transform } from "node:stream";
import { tmpdir } from "node:os";
import path from "node:path";

export interface FreezingProxy {
  socketPath: string;
  /** From now on nothing passes, in either direction, on old or new connections. */
  freeze(): void;
  /** Freezes as soon as a request matching `pattern` (e.g. `/POST \S*\/containers\/create/`) arrives; it never reaches the engine. */
  freezeOnRequest(pattern: RegExp): void;
  close(): Promise<void>;
}

export async function startFreezingProxy(engineSocketPath: string): Promise<FreezingProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), "codecall-proxy-"));
  const socketPath = path.join(dir, "docker.sock");
  const sockets = new Set<Socket>();
  let frozen = false;
  let trigger: RegExp | undefined;
  const freeze = () => {
    frozen = true;
    for (const socket of sockets) {
      socket.unpipe();
      socket.pause();
    }
  };
  // Half-open both ways: an exec's stdin EOF is a half-close, and its output still has to come back.
  const server = createServer({ allowHalfOpen: true }, (client) => {
    sockets.add(client);
    if (frozen) return client.pause();
    const engine = createConnection({ path: engineSocketPath, allowHalfOpen: true });
    sockets.add(engine);
    const watch = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (trigger?.test(chunk.toString("latin1"))) {
          freeze();
          return done();
        }
        done(null, chunk);
      },
    });
    client
      .pipe(watch)
      .pipe(engine)
      .on("error", () => {});
    engine.pipe(client).on("error", () => {});
    client.on("error", () => engine.destroy());
    engine.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    freeze,
    freezeOnRequest(pattern) {
      trigger = pattern;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
