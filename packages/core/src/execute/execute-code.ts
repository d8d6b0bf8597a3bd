/**
 * `executeCode()`: runs one model-written Python script in an environment, serves its tool calls
 * over a transport, and returns what it printed. Runtime failures (a dead backend, a missing
 * interpreter, a transport that breaks) come back as a result with status `error`; only invalid
 * options throw.
 */
import type { Environment } from "../environment.js";
import { CodecallError, errorMessage } from "../errors.js";
import { launchScriptCommand } from "../guest/launcher.js";
import { assertModuleName } from "../guest/python-names.js";
import { storedZip } from "../files/stored-zip.js";
import { pythonGuestFiles } from "../guest/python-guest.js";
import { DEFAULT_MODULE_NAME } from "../guest/python-stub.js";
import { newRunId, newRunToken } from "../ids.js";
import { RpcDispatcher, type ToolCallEvent } from "../rpc/dispatcher.js";
import type { ToolDefinition } from "../tool.js";
import { checkToolSet } from "../tool-set.js";
import type { Transport } from "../transport.js";
import { openTransport, supportingTransports, type OpenedTransport } from "./open-transport.js";
import { scrubEnv, type EnvPolicy } from "./env-policy.js";
import { readHostEnv } from "./host-env.js";
import { resolveLimits, type ExecutionLimits } from "./limits.js";
import { redactingSink } from "./redacting-sink.js";
import { composeResult, failedResult, type ExecuteCodeResult } from "./result.js";
import { ScopedEnvironment } from "./scoped-environment.js";
import { superviseScript } from "./supervise-script.js";

export interface ExecuteCodeOptions {
  /** The Python source to run. */
  code: string;
  /** Where it runs. `executeCode` does not close it. */
  environment: Environment;
  /** The transport, or candidates in order of preference (the first that supports the environment wins). */
  transport: Transport | readonly Transport[];
  /** Tools the script may call (also the source of the stub module). */
  tools?: readonly ToolDefinition[];
  /** Names from `tools` the script may call; omitted = all of them, empty = none. */
  allowedTools?: readonly string[];
  limits?: Partial<ExecutionLimits>;
  /** Which variables reach the script (allowlist + secret filter by default; `host` defaults to this process's env). */
  env?: EnvPolicy;
  /** Working directory of the script and of its tools; default: the environment's own. */
  cwd?: string;
  /** Aborting ends the script (status `interrupted`) and cancels in-flight tool calls. */
  signal?: AbortSignal;
  /** Name the script imports the tools from (default `codecall`). */
  moduleName?: string;
  /** Python interpreter command inside the environment (default `python3`). */
  interpreter?: string;
  /** Mask secrets in the output (default true). */
  redactSecrets?: boolean;
  /**
   * Live stdout of the script, as it arrives (uncapped). Secrets are masked as in the result, also
   * across chunks, so a secret may arrive a little later than the text before it; with
   * `redactSecrets: false` the chunks are the script's bytes as they are.
   */
  onStdout?: (chunk: Uint8Array) => void;
  onStderr?: (chunk: Uint8Array) => void;
  /** Progress: every dispatched tool call, at start and end. */
  onToolCall?: (event: ToolCallEvent) => void;
}

export async function executeCode(options: ExecuteCodeOptions): Promise<ExecuteCodeResult> {
  const started = performance.now();
  const limits = resolveLimits(options.limits);
  const { environment } = options;
  const candidates = supportingTransports(options.transport, environment);
  const tools = selectTools(options.tools ?? [], options.allowedTools);
  const moduleName = options.moduleName ?? DEFAULT_MODULE_NAME;
  assertModuleName(moduleName);
  const interpreter = options.interpreter ?? "python3";
  const elapsed = () => Math.round((performance.now() - started) / 10) / 100;
  const identity = { backend: environment.backendId, transport: candidates[0]!.id };

  if (typeof options.code !== "string" || options.code.trim() === "") {
    return failedResult("No code provided.", { durationSeconds: elapsed(), toolCallsMade: 0, ...identity });
  }

  const runId = newRunId();
  const token = newRunToken();
  let dispatcher: RpcDispatcher | undefined;
  // Kept as the promise, not its value: whatever ends the run early, a transport that is still
  // opening is awaited and closed in `finally`, so no server or relay outlives the call.
  let opening: Promise<OpenedTransport> | undefined;
  let transportsSkipped: string[] = [];
  let runDir: string | undefined;
  try {
    runDir = await environment.tempDir();
    const scrubbed = scrubEnv(await environment.defaultEnv(), { host: readHostEnv(), ...options.env });
    const knownSecrets = options.redactSecrets === false ? undefined : scrubbed.secretValues;
    const toolEnvironment = new ScopedEnvironment(environment, { env: scrubbed.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    dispatcher = new RpcDispatcher({
      tools,
      token,
      maxToolCalls: limits.maxToolCalls,
      maxFrameBytes: limits.maxFrameBytes,
      maxJsonDepth: limits.maxJsonDepth,
      environment: toolEnvironment,
      runId,
      ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
    });
    // The run's files (the script and the guest modules, with the preferred transport's client)
    // go into the run dir as one archive, one write, while the transport starts (on remote
    // backends both cost round trips); the launcher unpacks it. A fallback transport rewrites it.
    // The archive is built before anything starts, so a failure there leaves nothing to clean.
    const scriptPath = `${runDir}/script.py`;
    const archivePath = `${runDir}/run.zip`;
    const archiveFor = (transport: Transport) =>
      storedZip([
        ...pythonGuestFiles({ tools, clientSource: transport.guestClient("python"), moduleName }),
        { name: "script.py", data: options.code },
      ]);
    const preferred = candidates[0]!;
    const preferredArchive = archiveFor(preferred);
    opening = openTransport(candidates, environment, { runId, runDir, token, dispatcher, maxFrameBytes: limits.maxFrameBytes, interpreter });
    const [opened, writing] = await Promise.allSettled([opening, environment.writeFile(archivePath, preferredArchive, { mode: 0o600 })]);
    if (opened.status === "rejected") throw opened.reason;
    if (writing.status === "rejected") throw writing.reason;
    const { transport, session, skipped } = opened.value;
    identity.transport = transport.id;
    transportsSkipped = skipped;
    if (transport !== preferred) await environment.writeFile(archivePath, archiveFor(transport), { mode: 0o600 });

    const stdoutSink = options.onStdout && redactingSink(options.onStdout, knownSecrets);
    const stderrSink = options.onStderr && redactingSink(options.onStderr, knownSecrets);
    const pythonPath = scrubbed.env.PYTHONPATH ? `${runDir}:${scrubbed.env.PYTHONPATH}` : runDir;
    const run = await superviseScript({
      environment,
      command: launchScriptCommand(interpreter, scriptPath, archivePath),
      env: {
        ...scrubbed.env,
        ...session.guestEnv,
        PYTHONPATH: pythonPath,
        PYTHONDONTWRITEBYTECODE: "1",
        PYTHONUNBUFFERED: "1",
        PYTHONIOENCODING: "utf-8",
        PYTHONUTF8: "1",
        CODECALL_RPC_MAX_FRAME: String(limits.maxFrameBytes),
      },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      timeoutMs: limits.timeoutMs,
      killGraceMs: limits.killGraceMs,
      maxStdoutBytes: limits.maxStdoutBytes,
      maxStderrBytes: limits.maxStderrBytes,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(knownSecrets ? { guardSecrets: knownSecrets } : {}),
      ...(stdoutSink ? { onStdout: stdoutSink.write } : {}),
      ...(stderrSink ? { onStderr: stderrSink.write } : {}),
      onStopping: (reason) => dispatcher?.close(reason === "timeout" ? "the script timed out" : "the run was interrupted"),
    });
    dispatcher.close();
    stdoutSink?.end();
    stderrSink?.end();
    const result = composeResult({
      run,
      timeoutMs: limits.timeoutMs,
      toolCallsMade: dispatcher.toolCallsMade,
      durationSeconds: elapsed(),
      interpreter,
      knownSecrets,
      ...identity,
    });
    return transportsSkipped.length > 0 ? { ...result, transportsSkipped } : result;
  } catch (error) {
    const message = CodecallError.isInstance(error, "TRANSPORT_FAILED")
      ? `The ${environment.backendId} environment could not be reached by any transport: ${errorMessage(error)}`
      : `${environment.backendId} environment failed: ${errorMessage(error)}`;
    return failedResult(message, { durationSeconds: elapsed(), toolCallsMade: dispatcher?.toolCallsMade ?? 0, ...identity });
  } finally {
    dispatcher?.close();
    const opened = await opening?.catch(() => undefined);
    await opened?.session.close().catch(() => {});
    if (runDir !== undefined) await removeRunDir(environment, runDir);
  }
}

/**
 * The allow-listed tools: all when no list is given, none for an empty list. Throws
 * `INVALID_TOOL` for a tool set that cannot be offered (see {@link checkToolSet}).
 */
export function selectTools(tools: readonly ToolDefinition[], allowed: readonly string[] | undefined): ToolDefinition[] {
  checkToolSet(tools);
  if (allowed === undefined) return [...tools];
  const allowSet = new Set(allowed);
  return tools.filter((tool) => allowSet.has(tool.name));
}

async function removeRunDir(environment: Environment, runDir: string): Promise<void> {
  try {
    await environment.remove(runDir);
  } catch {
    // The environment may be gone (that is how the run failed); nothing is left to clean then.
  }
}
