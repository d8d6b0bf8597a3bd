/**
 * The RPC dir inside the run dir. `poll.sh` and the guest client use the same names:
 *   requests/   complete request files, `<id>.json`, renamed in by the guest
 *   claimed/    requests the host took (one rename each), kept until it confirms it holds them
 *   responses/  answers, `<id>.json`, renamed in by the host
 *   guest-tmp/  where the guest writes a request before renaming it into requests/
 *   host-tmp/   where the host writes answers before renaming them into responses/
 *   closed      left by the host's last poll: nothing more will be answered
 */
import { shellQuote } from "@codecall/core/plugin-kit";

const SUBDIRS = ["requests", "claimed", "responses", "guest-tmp", "host-tmp"];

/** Creates the RPC dir (0700; it must not exist yet, so nobody can plant one) and its subdirs. */
export function createRpcDirCommand(rpcDir: string): string {
  return `umask 077 && mkdir -m 700 ${shellQuote(rpcDir)} && cd ${shellQuote(rpcDir)} && mkdir -m 700 ${SUBDIRS.join(" ")}`;
}
