import { describe, expect, it } from "vitest";
import { CodecallError } from "../src/errors.js";
import { SessionPool } from "../src/session-pool/session-pool.js";

/** A session as the pool sees one: something that can be closed, and says whether it was. */
class Closeable {
  closed = false;
  constructor(readonly name: string) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A pool whose sessions are Closeables named after their key and fingerprint, all kept for inspection. */
function poolOf(options: ConstructorParameters<typeof SessionPool>[0]) {
  const pool = new SessionPool<Closeable>(options);
  const made: Closeable[] = [];
  const use = (key: string, fingerprint = "tools-1", work: (session: Closeable) => Promise<unknown> = async () => undefined) =>
    pool.use(
      key,
      fingerprint,
      async () => {
        const session = new Closeable(`${key}@${fingerprint}#${made.length}`);
        made.push(session);
        return session;
      },
      async (use) => ({ ...use, value: await work(use.session) }),
    );
  return { pool, made, use };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  // A safety net for a condition that must come true, never a measurement.
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 20_000) throw new Error(`${what}: not within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("SessionPool", () => {
  it("keeps one session per key: the second call of a key gets the same one, another key its own", async () => {
    const { pool, made, use } = poolOf({});
    const first = await use("alice");
    const again = await use("alice");
    const other = await use("bob");
    expect(first.origin).toBe("new");
    expect(first.previousEnd).toBeUndefined();
    expect(again).toMatchObject({ origin: "existing", session: first.session });
    expect(other.session).not.toBe(first.session);
    expect(made).toHaveLength(2);
    expect(pool.size).toBe(2);
    await pool.close();
  });

  it("ends a session idle for idleMs, and tells the key's next call why its state is gone", async () => {
    const { pool, made, use } = poolOf({ idleMs: 30 });
    await use("alice");
    await until(() => made[0]!.closed, "the idle session is closed");
    expect(pool.size).toBe(0);
    const next = await use("alice");
    expect(next).toMatchObject({ origin: "new", previousEnd: "idle" });
    expect(next.session).not.toBe(made[0]);
    await pool.close();
  });

  it("never ends a session for idleness while a cell runs in it", async () => {
    const { pool, made, use } = poolOf({ idleMs: 20 });
    const cell = deferred();
    const running = use("alice", "tools-1", () => cell.promise);
    await until(() => made.length === 1, "the session is made");
    // Many idle periods pass while the cell runs: the other key's session expires meanwhile.
    await use("bob");
    await until(() => made[1]!.closed, "bob's idle session is closed");
    expect(made[0]!.closed).toBe(false);
    cell.resolve();
    await running;
    await until(() => made[0]!.closed, "alice's session is closed once idle");
    await pool.close();
  });

  it("at the cap, ends the session idle the longest to make room", async () => {
    const { pool, made, use } = poolOf({ maxSessions: 2 });
    await use("a");
    await use("b");
    await use("a"); // a is now the more recently used
    const c = await use("c");
    expect(c.origin).toBe("new");
    expect(made.map((session) => [session.name, session.closed])).toEqual([
      ["a@tools-1#0", false],
      ["b@tools-1#1", true],
      ["c@tools-1#2", false],
    ]);
    expect(pool.keys()).toEqual(["a", "c"]);
    expect(await use("b")).toMatchObject({ origin: "new", previousEnd: "evicted" });
    expect(made[0]!.closed).toBe(true); // a was the idlest then
    await pool.close();
  });

  it("at the cap, never ends a session running a cell, and refuses when every session is busy", async () => {
    const { pool, made, use } = poolOf({ maxSessions: 2 });
    const cellA = deferred();
    const cellB = deferred();
    await use("b");
    const runningA = use("a", "tools-1", () => cellA.promise);
    await until(() => made.length === 2, "a's session is made");
    // b is idle and was used before a started: still, a is busy, so b must be the one to go.
    await use("c");
    expect(made.find((session) => session.name.startsWith("b@"))!.closed).toBe(true);
    expect(made.find((session) => session.name.startsWith("a@"))!.closed).toBe(false);
    const runningC = use("c", "tools-1", () => cellB.promise);
    const refused = await use("d").catch((error: unknown) => error);
    expect(CodecallError.isInstance(refused, "SESSION_LIMIT")).toBe(true);
    expect((refused as Error).message).toContain("All 2 sessions are running cells");
    expect(pool.keys().sort()).toEqual(["a", "c"]);
    cellA.resolve();
    cellB.resolve();
    await Promise.all([runningA, runningC]);
    expect((await use("d")).origin).toBe("new");
    await pool.close();
  });

  it("a changed tool set replaces the key's session: the old one is closed and never used again", async () => {
    const { pool, made, use } = poolOf({});
    const before = await use("alice", "tools-1");
    const after = await use("alice", "tools-2");
    expect(after).toMatchObject({ origin: "new", previousEnd: "tools-changed" });
    expect(after.session).not.toBe(before.session);
    expect(made[0]!.closed).toBe(true);
    expect((await use("alice", "tools-2")).session).toBe(after.session);
    expect(pool.size).toBe(1);
    await pool.close();
  });

  it("runs the calls of one key in turn, and of different keys at once", async () => {
    const { pool, use } = poolOf({});
    const order: string[] = [];
    const gate = deferred();
    const first = use("alice", "tools-1", async () => {
      order.push("first start");
      await gate.promise;
      order.push("first end");
    });
    const second = use("alice", "tools-1", async () => void order.push("second"));
    const other = use("bob", "tools-1", async () => void order.push("bob"));
    await other;
    expect(order).toEqual(["first start", "bob"]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first start", "bob", "first end", "second"]);
    await pool.close();
  });

  it("a session that cannot be made holds no slot, and the error reaches the caller", async () => {
    const pool = new SessionPool<Closeable>({ maxSessions: 1 });
    const failure = await pool
      .use(
        "alice",
        "tools-1",
        async () => {
          throw new Error("no kernel today");
        },
        async () => "ran",
      )
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe("no kernel today");
    expect(pool.size).toBe(0);
    expect(
      await pool.use(
        "bob",
        "tools-1",
        async () => new Closeable("bob"),
        async () => "ran",
      ),
    ).toBe("ran");
    await pool.close();
  });

  it("close() ends every session, and the pool refuses calls afterwards", async () => {
    const { pool, made, use } = poolOf({});
    await use("a");
    await use("b");
    await pool.close();
    expect(made.every((session) => session.closed)).toBe(true);
    expect(pool.size).toBe(0);
    const refused = await use("a").catch((error: unknown) => error);
    expect(CodecallError.isInstance(refused, "SESSION_CLOSED")).toBe(true);
  });

  it("end(key) ends one session; a call of that key waiting its turn is refused, not run in a closed session", async () => {
    const { pool, made, use } = poolOf({});
    const gate = deferred();
    const running = use("alice", "tools-1", () => gate.promise);
    const waiting = use("alice").catch((error: unknown) => error);
    await until(() => made.length === 1, "the session is made");
    expect(await pool.end("alice")).toBe(true);
    expect(made[0]!.closed).toBe(true);
    gate.resolve();
    await running;
    expect(CodecallError.isInstance(await waiting, "SESSION_CLOSED")).toBe(true);
    expect(await pool.end("alice")).toBe(false);
    await pool.close();
  });

  it("refuses options it cannot honour", () => {
    expect(() => new SessionPool({ idleMs: 0 })).toThrow(/idleMs must be a positive number/);
    expect(() => new SessionPool({ maxSessions: 0 })).toThrow(/maxSessions must be a whole number of at least 1/);
    expect(() => new SessionPool({ maxSessions: 1.5 })).toThrow(/maxSessions/);
  });
});
