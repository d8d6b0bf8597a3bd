# codecall environment agent: what it needs of Linux to hold process trees, beside the launcher's
# tree walk (guest/python/launcher.py, loaded as a module of the agent): prctl, and closing the
# descriptors a forked child must not keep.
#
# The agent and each command's shepherd are child subreapers (prctl PR_SET_CHILD_SUBREAPER): what a
# command orphans is re-parented to its shepherd instead of init, so it stays below the shepherd in
# the process tree whatever it did to hide (setsid, double fork, a cleared environment), and the
# tree read from /proc finds it. Elsewhere (no prctl, no /proc) these degrade to no-ops and the
# command's session is all that can be found.
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
