/**
 * Runs real guest Python against a transport, without `executeCode`: a private run dir with the
 * guest modules (the generated one, the runtime and the transport's client) and a driver script,
 * a real RpcDispatcher with probe tools, the transport's session, and the environment's own
 * `execute` — so a case sees exactly what the transport does.
 */
import {
  defineTool,
  type Environment,
  type ExecResult,
  type ToolCallEvent,
  type ToolDefinition,
  type Transport,
  type TransportSession,
} from "@codecall/core";
import { DEFAULT_MAX_FRAME_BYTES, newRunToken, pythonGuestFiles, RpcDispatcher } from "@codecall/core/protocol";
import { newRunId, shellQuote } from "@codecall/core/plugin-kit";

/** What the probe tools saw during one guest run. */
export interface ToolProbe {
  /** `seq` calls, in the order the host received them. */
  sequence: number[];
  /** `count` invocations per key. */
  counts: Map<string, number>;
  /** Largest number of `rendezvous` calls that were waiting together. */
  maxWaiting: number;
}

export interface GuestRunOptions {
  /** Frame limit of the run (default 16 MiB). */
  maxFrameBytes?: number;
  /** Connections the run may have open at once (the dispatcher's default when absent). */
  maxConnections?: number;
  /** Every dispatched call, at start and end; gets the live session (to close it mid-call). */
  onToolCall?: (event: ToolCallEvent, session: TransportSession) => void;
}

export interface GuestRun {
  result: ExecResult;
  probe: ToolProbe;
  dispatcher: RpcDispatcher;
}

/** How long a `rendezvous` call waits for its party before giving up (only a broken transport waits that long). */
const RENDEZVOUS_GIVE_UP_MS = 10_000;

/** The probe tools; fresh state per run. */
function probeTools(probe: ToolProbe): ToolDefinition[] {
  const waiting: ((seen: number) => void)[] = [];
  return [
    defineTool({
      name: "echo",
      description: "Returns its text.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: ({ text }: { text: string }) => text,
    }),
    defineTool({
      name: "blob",
      description: "Returns a string of `size` characters: 'é' then 'x' repeated.",
      parameters: { type: "object", properties: { size: { type: "integer" } }, required: ["size"] },
      execute: ({ size }: { size: number }) => `é${"x".repeat(size - 1)}`,
    }),
    defineTool({
      name: "seq",
      description: "Records n in arrival order and returns n * 2.",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      execute: ({ n }: { n: number }) => {
        probe.sequence.push(n);
        return n * 2;
      },
    }),
    defineTool({
      name: "count",
      description: "Counts invocations per key and returns the key.",
      parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      execute: ({ key }: { key: string }) => {
        probe.counts.set(key, (probe.counts.get(key) ?? 0) + 1);
        return key;
      },
    }),
    defineTool({
      name: "rendezvous",
      description: "Waits until `parties` calls wait together, then returns how many did.",
      parameters: { type: "object", properties: { parties: { type: "integer" } }, required: ["parties"] },
      execute: ({ parties }: { parties: number }) =>
        new Promise<number>((resolve) => {
          // Only a transport that serialises calls lets this fire: answer, so the case fails
          // instead of hanging.
          const timer = setTimeout(() => {
            waiting.splice(waiting.indexOf(release), 1);
            resolve(probe.maxWaiting);
          }, RENDEZVOUS_GIVE_UP_MS);
          const release = (seen: number) => {
            clearTimeout(timer);
            resolve(seen);
          };
          waiting.push(release);
          probe.maxWaiting = Math.max(probe.maxWaiting, waiting.length);
          if (waiting.length >= parties) for (const waiter of waiting.splice(0)) waiter(parties);
        }),
    }),
    defineTool({
      name: "hang",
      description: "Never finishes on its own; ends when cancelled.",
      parameters: { type: "object", properties: {} },
      execute: (_args: Record<string, never>, context) =>
        new Promise((_, reject) => context.signal.addEventListener("abort", () => reject(new Error("cancelled")))),
    }),
  ];
}

/** Runs `python` (a whole script; the module is importable as `codecall`) with one transport session. */
export async function runGuest(
  environment: Environment,
  transport: Transport,
  python: string,
  options: GuestRunOptions & { interpreter: string; timeoutMs: number },
): Promise<GuestRun> {
  const probe: ToolProbe = { sequence: [], counts: new Map(), maxWaiting: 0 };
  const tools = probeTools(probe);
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const runId = newRunId();
  const token = newRunToken();
  const runDir = await environment.tempDir();
  let session: TransportSession | undefined;
  const dispatcher = new RpcDispatcher({
    tools,
    token,
    environment,
    runId,
    maxToolCalls: 10_000,
    maxFrameBytes,
    ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
    onToolCall: (event) => {
      if (session) options.onToolCall?.(event, session);
    },
  });
  try {
    for (const file of pythonGuestFiles({ tools, clientSource: transport.guestClient("python") })) {
      await environment.writeFile(`${runDir}/${file.name}`, file.data, { mode: 0o600 });
    }
    await environment.writeFile(`${runDir}/driver.py`, python, { mode: 0o600 });
    session = await transport.open(environment, { runId, runDir, token, dispatcher, maxFrameBytes, interpreter: options.interpreter });
    const result = await environment.execute(`exec ${options.interpreter} driver.py`, {
      cwd: runDir,
      env: {
        ...session.guestEnv,
        PYTHONPATH: runDir,
        PYTHONDONTWRITEBYTECODE: "1",
        PYTHONUNBUFFERED: "1",
        PYTHONIOENCODING: "utf-8",
        CODECALL_RPC_MAX_FRAME: String(maxFrameBytes),
      },
      timeoutMs: options.timeoutMs,
    });
    return { result, probe, dispatcher };
  } finally {
    dispatcher.close();
    await session?.close();
    await environment.executeOneshot(`rm -rf -- ${shellQuote(runDir)}`).catch(() => {});
  }
}
