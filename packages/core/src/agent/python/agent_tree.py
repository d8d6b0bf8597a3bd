# codecall environment agent: process trees on Linux.
#
# The agent and each command's shepherd are child subreapers (prctl PR_SET_CHILD_SUBREAPER): what a
# command orphans is re-parented to its shepherd instead of init, so it stays below the shepherd in
# the process tree whatever it did to hide (setsid, double fork, a cleared environment), and the
# tree read from /proc finds it. Elsewhere (no prctl, no /proc) these degrade to no-ops and the
# command's process group is all that can be found.
import os

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_libc = []


def prctl(option, value):
    """True when the kernel took the setting (Linux), False where there is no prctl."""
    try:
        if not _libc:
            import ctypes

            _libc.append(ctypes.CDLL(None, use_errno=True))
        return _libc[0].prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def parent_table():
    """{pid: [child pids]} for every process /proc shows (empty where it shows none)."""
    table = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as stat:
                fields = stat.read()
        except OSError:
            continue  # ended while we looked
        # "pid (comm) state ppid ...", and comm may hold spaces and parentheses.
        ppid = int(fields[fields.rindex(b")") + 2 :].split()[1])
        table.setdefault(ppid, []).append(int(entry))
    return table


def tree_below(root, table=None):
    """Every pid below `root` (not root itself), parents before their children."""
    if table is None:
        table = parent_table()
    found = []
    pending = list(table.get(root, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(table.get(pid, ()))
    return found


def send_signal(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass  # already gone


def close_descriptors_above(lowest):
    """Closes every descriptor from `lowest` up: a forked child must not hold the agent's pipes."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(lowest, 4096))
    for fd in fds:
        if fd >= lowest:
            try:
                os.close(fd)
            except OSError:
                pass
