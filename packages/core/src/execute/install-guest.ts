/**
 * Installing the guest: the run dir gets the script and the stub module the script imports its
 * tools from, the module carrying the client of the transport that serves the run.
 */
import type { Environment } from "../environment.js";
import { generatePythonModule } from "../guest/python-stub.js";
import type { ToolDefinition } from "../tool.js";
import type { Transport } from "../transport.js";
import type { OpenedTransport } from "./open-transport.js";

/** What the guest is made of, and where it goes. */
export interface GuestFiles {
  environment: Environment;
  /** The run's private directory (see `RunContext.runDir`). */
  runDir: string;
  /** The script's source. */
  code: string;
  /** The tools the module offers (the allow-listed ones). */
  tools: readonly ToolDefinition[];
  moduleName: string;
}

/** The installed guest and the transport it talks to. */
export interface InstalledGuest {
  /** The script, for the command that runs it. */
  scriptPath: string;
  opened: OpenedTransport;
}

/**
 * Writes the guest while the transport opens (on remote backends both cost round trips): the
 * module gets the `preferred` transport's client, and is rewritten when a fallback serves instead.
 * Rejects with the first failure of generating the module, opening the transport, writing. The
 * session stays the caller's to close, also when this rejects.
 */
export async function installGuest(guest: GuestFiles, preferred: Transport, opening: Promise<OpenedTransport>): Promise<InstalledGuest> {
  const { environment, runDir } = guest;
  const scriptPath = `${runDir}/script.py`;
  const modulePath = `${runDir}/${guest.moduleName}.py`;
  const moduleFor = (transport: Transport) =>
    generatePythonModule({ tools: guest.tools, clientSource: transport.guestClient("python"), moduleName: guest.moduleName });
  const preferredModule = moduleFor(preferred);
  const [opened, writing] = await Promise.allSettled([
    opening,
    Promise.all([
      environment.writeFile(modulePath, preferredModule, { mode: 0o600 }),
      environment.writeFile(scriptPath, guest.code, { mode: 0o600 }),
    ]),
  ]);
  if (opened.status === "rejected") throw opened.reason;
  if (writing.status === "rejected") throw writing.reason;
  const { transport } = opened.value;
  if (transport !== preferred) await environment.writeFile(modulePath, moduleFor(transport), { mode: 0o600 });
  return { scriptPath, opened: opened.value };
}
