/**
 * Finds what a run left running, from inside the environment: every live process whose command
 * line holds a marker (the script's path: the script, its forks, and helpers given the path as an
 * argument). Python, which every environment that runs scripts has.
 */
import { shellQuote } from "@codecall/core/plugin-kit";

/** The checker; it gets the marker reversed, so its own command line never matches. */
const CHECKER = `
import os, sys, time
marker = sys.argv[1][::-1].encode()
for attempt in range(50):
    left = []
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as cmdline, open("/proc/%s/stat" % entry, "rb") as stat:
                if marker in cmdline.read() and stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                    left.append(entry)
        except (OSError, IndexError):
            pass  # Not a process, or it ended while we looked.
    if not left:
        break
    time.sleep(0.1)  # A kill takes a moment to land.
print("left: %d" % len(left) if left else "none")
`;

/**
 * A command that prints "none" once no live process's command line holds `marker` (waiting up to
 * about 5 s for kills to land), else "left: N".
 */
export function leftoverProcessesCommand(marker: string): string {
  return `python3 -c ${shellQuote(CHECKER)} ${shellQuote([...marker].reverse().join(""))}`;
}
