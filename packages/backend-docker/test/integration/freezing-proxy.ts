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
  /**
   * Passes the engine's answers to the next `times` requests matching `pattern` through `rewrite`
   * (each answer is assumed to come in one chunk, as small JSON answers do): an engine whose state
   * lags behind, without a fake engine.
   */
  rewriteAnswers(pattern: RegExp, rewrite: (chunk: string) => string, times: number): void;
  close(): Promise<void>;
}

export async function startFreezingProxy(engineSocketPath: string): Promise<FreezingProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), "codecall-proxy-"));
  const socketPath = path.join(dir, "docker.sock");
  const sockets = new Set<Socket>();
  let frozen = false;
  let trigger: RegExp | undefined;
  let rewriting: { pattern: RegExp; rewrite: (chunk: string) => string; times: number } | undefined;
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
    // The engine answers a connection's requests in order; one request is in flight at a time.
    let rewriteNextAnswer = false;
    const watch = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        const text = chunk.toString("latin1");
        if (trigger?.test(text)) {
          freeze();
          return done();
        }
        if (rewriting && rewriting.times > 0 && rewriting.pattern.test(text)) {
          rewriting.times--;
          rewriteNextAnswer = true;
        }
        done(null, chunk);
      },
    });
    const answers = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        if (!rewriteNextAnswer || !rewriting) return done(null, chunk);
        rewriteNextAnswer = false;
        done(null, Buffer.from(rewriting.rewrite(chunk.toString("latin1")), "latin1"));
      },
    });
    client
      .pipe(watch)
      .pipe(engine)
      .on("error", () => {});
    engine
      .pipe(answers)
      .pipe(client)
      .on("error", () => {});
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
    rewriteAnswers(pattern, rewrite, times) {
      rewriting = { pattern, rewrite, times };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
