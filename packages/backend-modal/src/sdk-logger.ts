/**
 * The SDK's log lines, as codecall debug lines (`CODECALL_DEBUG=backend`) instead of the SDK's own
 * console output: a CLI run against a local API would otherwise print the SDK's warning about the
 * router's TLS on every start. The SDK picks the level (`MODAL_LOGLEVEL`, default warn). Its lines
 * carry ids, URLs and method names, never credentials; codecall masks them like every debug line.
 */
import { describeValue, errorMessage } from "@codecall/core";
import { debugLogger } from "@codecall/core/backend-kit";
import type { Logger } from "modal";

const log = debugLogger("backend");

/** The SDK's `key, value, key, value` arguments as ` key=value` text. */
function pairs(args: readonly unknown[]): string {
  let text = "";
  for (let index = 0; index < args.length; index += 2) {
    const value = args[index + 1];
    const shown = value instanceof Error ? errorMessage(value) : typeof value === "string" ? value : describeValue(value, { maxLength: 200 });
    text += ` ${String(args[index])}=${shown}`;
  }
  return text;
}

const line =
  (level: string) =>
  (message: string, ...args: unknown[]) =>
    log(() => `modal sdk ${level}: ${message}${pairs(args)}`);

/** A `Logger` for `new ModalClient({ logger })`. */
export const sdkLogger: Logger = { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
