# codecall environment agent: the shepherd, one forked process per command.
#
# The agent forks a shepherd for each command; the shepherd starts the command in a session of its
# own and is its child subreaper, so every process the command orphans comes back to the shepherd
# rather than to init or to the agent: the processes below the shepherd are exactly the command's
# tree, whatever its members did (setsid, double fork, a cleared environment). When the command's
# first process exits, the shepherd kills and reaps what is left of the tree, then reports on its
# status descriptor and exits. Should the agent die first, the kernel sends the shepherd SIGTERM
# (PR_SET_PDEATHSIG) and it ends the tree; nothing a command started outlives the agent.
#
# Status lines, in order: "pid <leader pid>", then "exit <code>" or "signal <number>".
import os
import signal
import time

from agent_tree import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, close_descriptors_above, prctl, send_signal, tree_below

STATUS_FD = 3
# What a command exits with when it cannot be started (as a shell says it).
CANNOT_RUN = 127
NO_WORKING_DIRECTORY = 125


def shepherd(agent_pid, command, stdio, status):
    """Runs in the agent's forked child: starts `command` and watches it. Never returns."""
    try:
        become_shepherd(agent_pid, stdio, status)
        leader = os.fork()
        if leader == 0:
            run_command(command)
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)  # the command's pipes end with the command, not with us
        os.close(null)
        report("pid %d" % leader)
        ended = wait_for(leader)
        end_tree()
        if os.WIFSIGNALED(ended):
            report("signal %d" % os.WTERMSIG(ended))
        else:
            report("exit %d" % (os.WEXITSTATUS(ended) if os.WIFEXITED(ended) else 1))
    finally:
        os._exit(0)


def become_shepherd(agent_pid, stdio, status):
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGCHLD, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, on_agent_gone)
    for target, fd in enumerate(stdio):
        os.dup2(fd, target)
    if status != STATUS_FD:
        os.dup2(status, STATUS_FD)
    os.set_inheritable(STATUS_FD, False)
    close_descriptors_above(STATUS_FD + 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != agent_pid:
        on_agent_gone(signal.SIGTERM, None)  # the agent died before the death signal was armed
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def run_command(command):
    """In the command's first process: a new session, its directory, its environment. Never returns."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setsid()
        # Python ignores these; a command expects them at their defaults (`yes | head` ends by SIGPIPE).
        for signum in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(signum, signal.SIG_DFL)
        cwd = command.get("cwd")
        if cwd:
            try:
                os.chdir(cwd)
            except OSError:
                os.write(2, ("codecall: no such working directory: %s\n" % cwd).encode("utf-8", "replace"))
                os._exit(NO_WORKING_DIRECTORY)
        argv = command["argv"]
        os.execvpe(argv[0], argv, command["env"])
    except BaseException as error:  # noqa: B036 - nothing may escape into the shepherd's code
        try:
            os.write(2, ("codecall: cannot run %s: %s\n" % (command["argv"][0], error)).encode("utf-8", "replace"))
        except OSError:
            pass
    os._exit(CANNOT_RUN)


def report(line):
    try:
        os.write(STATUS_FD, (line + "\n").encode())
    except OSError:
        pass  # the agent is gone


def wait_for(leader):
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == leader:
            return status


def has_children():
    """Reaps the children that ended; True while any still runs."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def end_tree():
    # Each round kills what it sees; the orphans of the killed come back to us and are seen in the
    # next round, so even a fork bomb runs out.
    while has_children():
        pids = tree_below(os.getpid())
        if not pids:
            return  # without /proc nothing can be found; the session kill has to do
        send_signal(pids, signal.SIGKILL)
        time.sleep(0.005)


def on_agent_gone(_signum, _frame):
    end_tree()
    os._exit(0)
