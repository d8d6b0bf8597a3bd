/**
 * @codecall/core/backend-kit — what a backend (or transport, or tool) author builds on:
 * `ExecEnvironment` (a whole Environment from one "run this command" primitive), the remote
 * command scripts, option declarations (`defineOptions`), process collection, bounded reads,
 * shell quoting, timers (one abortable `delay`), the socket-path limit, the guest-language guard,
 * debug logging and the other small helpers the official plugins share. An embedder needs none of it.
 */
export { ExecEnvironment, type ExecEnvironmentOptions, type NativeFiles } from "./remote/exec-environment.js";
export type { ExecChannel, ExecRequest, StartExec } from "./remote/remote-executor.js";
export {
  remoteCommand,
  remoteKillCommand,
  TREE_TAG_VARIABLE,
  WRAPPER_FAILURE_EXIT_CODE,
  type RemoteCommand,
  type RemoteCommandOptions,
} from "./remote/remote-command.js";
export { defineOptions, OptionSet } from "./options/define-options.js";
export { closestName } from "./options/closest-name.js";
export type { OptionDescription } from "./options/option-help.js";
export type {
  BooleanOption,
  BooleanOrStringOption,
  EnvOption,
  IntegerOption,
  ListOption,
  MapOption,
  NumberOption,
  OptionInput,
  OptionsInput,
  OptionSpec,
  OptionSpecs,
  OptionType,
  OptionValue,
  OptionValues,
  StringOption,
} from "./options/option-types.js";
export { collectProcess, drainStream, toExecResult, writeStdin, type CollectedProcess, type CollectOptions } from "./process/collect.js";
export { HostProcess, startHostProcess, type HostStdio, type SpawnedChild, type StartHostProcessOptions } from "./process/host-process.js";
export type { ProcessHost, TreeSignal } from "./process/process-tree.js";
export { LiveProcesses, type WatchedProcess } from "./process/live-processes.js";
export { StreamTail } from "./process/stream-tail.js";
export { checkMaxBytes, fileTooLarge, readBounded, type BoundedReadOptions, type ReadAt } from "./files/bounded-read.js";
export { ScopedEnvironment, type RunScope } from "./execute/scoped-environment.js";
export { isCommandNotFound, missingInterpreterMessage } from "./execute/result.js";
export { validateAgainstSchema } from "./schema/validate.js";
export { describeStandardIssues, isStandardSchema, parseWithStandardSchema, standardInputJsonSchema } from "./schema/standard-schema.js";
export { assertEnvName, shellExports, shellQuote } from "./text/shell-quote.js";
export { stripAnsi } from "./text/ansi.js";
export { groupDigits } from "./text/group-digits.js";
export { MAX_TIMER_DELAY_MS, setLongTimeout, type LongTimeout, type LongTimeoutOptions } from "./timers/long-timeout.js";
export { delay, type DelayOptions } from "./timers/delay.js";
export { socketPathTooLong } from "./sockets/socket-path.js";
export { guestClientFor } from "./guest/guest-client-for.js";
export { newRunId } from "./ids.js";
export { debugLogger, type DebugLog } from "./debug/debug-log.js";
export type { DebugNamespace } from "./debug/debug-namespaces.js";
export { describeCommand, describeExit } from "./debug/describe-command.js";
