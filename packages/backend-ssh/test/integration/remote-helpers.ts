// Shell snippets the SSH integration tests run on the host to look at processes and connections.
import type { Environment } from "@codecall/core";
import { shellQuote } from "@codecall/core/backend-kit";

/**
 * Prints the pid of the sshd process serving the connection the command runs on: the nearest
 * ancestor named sshd (the per-connection process; "sshd-session" on OpenSSH 9.8+).
 */
export const SERVING_SSHD_PID =
  `p=$$; while [ "$p" -gt 1 ]; do case "$(cat /proc/$p/comm)" in sshd*) echo "$p"; break;; esac; ` + `p=$(awk '{print $4}' /proc/$p/stat); done`;

/** The client port of the command's own connection (unique per TCP connection). */
export async function connectionPort(environment: Environment): Promise<string> {
  const result = await environment.executeOneshot('set -- $SSH_CONNECTION; echo "$2"');
  return result.stdout.trim();
}

/** A pgrep pattern for `marker`: "[s]leep 1" matches "sleep 1" but not the checking command's own line. */
function pattern(marker: string): string {
  return shellQuote(`[${marker[0]}]${marker.slice(1)}`);
}

/** Prints how many processes have `marker` in their command line. */
export function countCommand(marker: string): string {
  return `pgrep -c -f ${pattern(marker)}; true`;
}

/** Waits (up to ~5 s) until no process whose command line contains `marker` is left; prints what remains. */
export function leftoversCommand(marker: string): string {
  return `i=0; while [ $i -lt 50 ]; do pgrep -f ${pattern(marker)} >/dev/null || exit 0; i=$((i+1)); sleep 0.1; done; ps -o pid=,args= -p "$(pgrep -d, -f ${pattern(marker)})"; exit 1`;
}
