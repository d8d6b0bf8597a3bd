/**
 * The guest side of a Python run: the generated tools module and the runtime modules it imports,
 * each a real Python module, written side by side into the run dir (which is on the script's
 * PYTHONPATH). `executeCode` packs them with the script into one archive, so installing the guest
 * costs one write however many modules it holds; the launcher unpacks it (see launcher.ts).
 *
 * The modules: `<moduleName>.py` (the tools, python-stub.ts), `_codecall_calls.py` (calling
 * helpers), `_codecall_protocol.py` (`ToolError`, the wire format), `_codecall_client.py` (the
 * transport's client, from `Transport.guestClient`; its contract is python/_codecall_client.pyi)
 * and `sitecustomize.py`, the start-up hook of the script and of the Python processes it starts:
 * it chooses stdout's buffering and keeps buffered output from being lost when the run is killed
 * (see guest-env.ts).
 */
import type { ToolDefinition } from "../tool.js";
import { assertModuleName, GUEST_RUNTIME_MODULES } from "./python-names.js";
import { DEFAULT_MODULE_NAME, generatePythonModule } from "./python-stub.js";
import callsModule from "./python/_codecall_calls.py?raw";
import protocolModule from "./python/_codecall_protocol.py?raw";
import startupModule from "./python/sitecustomize.py?raw";

/** One file of the guest: its name in the run dir and its source. */
export interface GuestFile {
  readonly name: string;
  readonly data: string;
}

export interface PythonGuestOptions {
  tools: readonly ToolDefinition[];
  /** Source of the transport's Python client (see `Transport.guestClient`). */
  clientSource: string;
  /** Name the script imports the tools from (default `codecall`). */
  moduleName?: string;
}

/**
 * The guest's modules. Throws `INVALID_TOOL` for tools Python cannot name and `INVALID_OPTIONS`
 * for a module name it cannot import or that the runtime takes.
 */
export function pythonGuestFiles(options: PythonGuestOptions): GuestFile[] {
  const moduleName = options.moduleName ?? DEFAULT_MODULE_NAME;
  assertModuleName(moduleName);
  const { protocol, calls, client, startup } = GUEST_RUNTIME_MODULES;
  return [
    { name: `${moduleName}.py`, data: generatePythonModule({ tools: options.tools, moduleName }) },
    { name: `${calls}.py`, data: callsModule },
    { name: `${protocol}.py`, data: protocolModule },
    { name: `${client}.py`, data: options.clientSource },
    { name: `${startup}.py`, data: startupModule },
  ];
}
