/**
 * Installing the guest: the run dir gets the script and the guest modules it imports its tools
 * from (see python-guest.ts), the client module being that of the transport that serves the run.
 */
import type { Environment } from "../environment.js";
import { storedZip } from "../files/stored-zip.js";
import { pythonGuestFiles } from "../guest/python-guest.js";
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
  /** The archive holding the script and the modules, which the launcher or the environment unpacks (see launcher.ts). */
  archivePath: string;
  opened: OpenedTransport;
}

/**
 * Writes the guest while the transport opens (on remote backends both cost round trips): the
 * script and the modules go into the run dir as one archive, one write however many modules there
 * are, with the `preferred` transport's client; it is rewritten when a fallback serves instead.
 * Rejects with the first failure of building the archive, opening the transport, writing. The
 * session stays the caller's to close, also when this rejects.
 */
export async function installGuest(guest: GuestFiles, preferred: Transport, opening: Promise<OpenedTransport>): Promise<InstalledGuest> {
  const { environment, runDir } = guest;
  const scriptPath = `${runDir}/script.py`;
  const archivePath = `${runDir}/run.zip`;
  const archiveFor = (transport: Transport) =>
    storedZip([
      ...pythonGuestFiles({ tools: guest.tools, clientSource: transport.guestClient("python"), moduleName: guest.moduleName }),
      { name: "script.py", data: guest.code },
    ]);
  const preferredArchive = archiveFor(preferred);
  const [opened, writing] = await Promise.allSettled([opening, environment.writeFile(archivePath, preferredArchive, { mode: 0o600 })]);
  if (opened.status === "rejected") throw opened.reason;
  if (writing.status === "rejected") throw writing.reason;
  const { transport } = opened.value;
  if (transport !== preferred) await environment.writeFile(archivePath, archiveFor(transport), { mode: 0o600 });
  return { scriptPath, archivePath, opened: opened.value };
}
