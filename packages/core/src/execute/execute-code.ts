/**
 * `executeCode()`: runs one model-written Python script in an environment, serves its tool calls
 * over a transport, and returns what it printed. Runtime failures (a dead backend, a missing
 * interpreter, a transport that breaks) come back as a result with status `error`; only invalid
 * options throw.
 */
import type { Environment } from "../environment.js";
import { CodecallError, errorMessage } from "../errors.js";
import { launchScriptCommand } from "../guest/launcher.js";
import { DEFAULT_MODULE_NAME, generatePythonModule, isPythonIdentifier } from "../guest/python-stub.js";
import { newRunId, newRunToken } from "../ids.js";
import { RpcDispatcher, type ToolCallEvent } from "../rpc/dispatcher.js";
import type { ToolDefinition } from "../tool.js";
import type { Transport, TransportSession } from "../transport.js";
import { openTransport, supportingTransports } from "./open-transport.js";
import { scrubEnv, type EnvPolicy } from "./env-policy.js";
import { resolveLimits, type ExecutionLimits } from "./limits.js";
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
  /** Which variables reach the script (allowlist + secret filter by default). */
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
  /** Live stdout of the script, as it arrives (uncapped, unredacted: for trusted consoles). */
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
  if (!isPythonIdentifier(moduleName)) throw new CodecallError("INVALID_OPTIONS", `moduleName must be a Python identifier, got ${JSON.stringify(moduleName)}`);
  const interpreter = options.interpreter ?? "python3";
  const elapsed = () => Math.round((performance.now() - started) / 10) / 100;
  const identity = { backend: environment.backendId, transport: candidates[0]!.id };

  if (typeof options.code !== "string" || options.code.trim() === "") {
    return failedResult("No code provided.", { durationSeconds: elapsed(), toolCallsMade: 0, ...identity });
  }

  const runId = newRunId();
  const token = newRunToken();
  let dispatcher: RpcDispatcher | undefined;
  let session: TransportSession | undefined;
  let transportsSkipped: string[] = [];
  let runDir: string | undefined;
  try {
    runDir = await environment.tempDir();
    const scrubbed = scrubEnv(await environment.defaultEnv(), options.env);
    const toolEnvironment = new ScopedEnvironment(environment, { env: scrubbed.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    dispatcher = new RpcDispatcher({
      tools,
      token,
      maxToolCalls: limits.maxToolCalls,
      environment: toolEnvironment,
      runId,
      ...(options.onToolCall ? { onToolCall: options.onToolCall } : {}),
    });
    // The files are written while the transport starts (on remote backends both cost round trips),
    // the module with the preferred transport's client; a fallback transport rewrites it.
    const scriptPath = `${runDir}/script.py`;
    const modulePath = `${runDir}/${moduleName}.py`;
    const moduleFor = (transport: Transport) => generatePythonModule({ tools, clientSource: transport.guestClient("python"), moduleName });
    const preferred = candidates[0]!;
    const [opening, writing] = await Promise.allSettled([
      openTransport(candidates, environment, { runId, runDir, token, dispatcher, maxFrameBytes: limits.maxFrameBytes, interpreter }).then((opened) => {
        session = opened.session;
        return opened;
      }),
      Promise.all([
        environment.writeFile(modulePath, moduleFor(preferred), { mode: 0o600 }),
        environment.writeFile(scriptPath, options.code, { mode: 0o600 }),
      ]),
    ]);
    if (opening.status === "rejected") throw opening.reason;
    if (writing.status === "rejected") throw writing.reason;
    const opened = opening.value;
    identity.transport = opened.transport.id;
    transportsSkipped = opened.skipped;
    if (opened.transport !== preferred) await environment.writeFile(modulePath, moduleFor(opened.transport), { mode: 0o600 });

    const pythonPath = scrubbed.env.PYTHONPATH ? `${runDir}:${scrubbed.env.PYTHONPATH}` : runDir;
    const run = await superviseScript({
      environment,
      command: launchScriptCommand(interpreter, scriptPath),
      env: {
        ...scrubbed.env,
        ...opened.session.guestEnv,
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
      ...(options.onStdout ? { onStdout: options.onStdout } : {}),
      ...(options.onStderr ? { onStderr: options.onStderr } : {}),
      onStopping: (reason) => dispatcher?.close(reason === "timeout" ? "the script timed out" : "the run was interrupted"),
    });
    dispatcher.close();
    const result = composeResult({
      run,
      timeoutMs: limits.timeoutMs,
      toolCallsMade: dispatcher.toolCallsMade,
      durationSeconds: elapsed(),
      interpreter,
      knownSecrets: options.redactSecrets === false ? undefined : scrubbed.secretValues,
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
    await session?.close().catch(() => {});
    if (runDir !== undefined) await removeRunDir(environment, runDir);
  }
}

/** The allow-listed tools: all when no list is given, none for an empty list. */
export function selectTools(tools: readonly ToolDefinition[], allowed: readonly string[] | undefined): ToolDefinition[] {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new CodecallError("INVALID_TOOL", `Two tools are named ${tool.name}`);
    names.add(tool.name);
  }
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
