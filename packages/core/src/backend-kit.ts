/**
 * @codecall/core/backend-kit — what a backend (or transport, or tool) author builds on:
 * `ExecEnvironment` (a whole Environment from one "run this command" primitive), the remote
 * command scripts, option declarations (`defineOptions`), process collection, bounded reads,
 * shell quoting, timers (one abortable `delay`), the socket-path limit, the guest-language guard,
 * debug logging and the other small helpers the official plugins share. An embedder needs none of it.
 * Everything but the remote executor is also `@codecall/core/plugin-kit`, which loads less.
 */
export { ExecEnvironment, type ExecEnvironmentOptions, type NativeFiles } from "./remote/exec-environment.js";
export type { AgentWatchOptions } from "./agent/agent-watchdog.js";
export type { ExecChannel, ExecRequest, StartExec } from "./remote/remote-executor.js";
export {
  remoteCommand,
  remoteKillCommand,
  WRAPPER_FAILURE_EXIT_CODE,
  type RemoteCommand,
  type RemoteCommandOptions,
} from "./remote/remote-command.js";
export * from "./plugin-kit.js";
