# codecall environment agent: what it needs of Linux to hold process trees, beside the launcher's
# tree walk and prctl (guest/python/launcher.py, loaded as a module of the agent): the parent-death
# signal, and closing the descriptors a forked child must not keep.
#
# The agent and each command's shepherd are child subreapers (prctl PR_SET_CHILD_SUBREAPER): what a
# command orphans is re-parented to its shepherd instead of init, so it stays below the shepherd in
# the process tree whatever it did to hide (setsid, double fork, a cleared environment), and the
# tree read from /proc finds it. Elsewhere (no prctl, no /proc) these degrade to no-ops and the
# command's session is all that can be found.
import os

PR_SET_PDEATHSIG = 1


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
