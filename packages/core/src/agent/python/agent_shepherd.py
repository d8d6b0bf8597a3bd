# codecall environment agent: shepherds, one forked process per command.
#
# A shepherd is the child subreaper of one command: it starts the command in a session of its own,
# and every process the command orphans comes back to the shepherd rather than to init or the
# agent, so the processes below the shepherd are exactly the command's tree, whatever its members
# did (setsid, double fork, a cleared environment). When the command's first process exits, the
# shepherd kills and reaps what is left of the tree, reports, and exits. Should the agent die first,
# the kernel sends the shepherd SIGTERM (PR_SET_PDEATHSIG) and it ends the tree: nothing a command
# started outlives the agent.
#
# Forking the agent (a Python process) is most of what a command costs, so the agent forks each
# shepherd ahead of time: an idle shepherd already holds its command's pipes and waits on its spec
# descriptor for the request (argv or command, env, cwd). The command itself is started with
# posix_spawn (vfork and exec), which copies nothing.
#
# Status lines to the agent, in order: "pid <leader pid>", then "exit <code>" or "signal <number>".
import fcntl
import json
import os
import signal

from agent_tree import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, close_descriptors_above, prctl
from launcher import end_leftovers

STATUS_FD = 3
SPEC_FD = 4
# What a command exits with when it cannot be started (as a shell says it).
CANNOT_RUN = 127
NO_WORKING_DIRECTORY = 125


class Shepherd:
    """The agent's handle on an idle shepherd: its pid and the agent's ends of its pipes."""

    def __init__(self, pid, stdin, stdout, stderr, status, spec):
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.status = status
        self.spec = spec

    def assign(self, request):
        """Hands the shepherd its command (the request's JSON); OSError when it is gone."""
        os.set_blocking(self.spec, True)
        try:
            os.write(self.spec, request)
        finally:
            os.close(self.spec)

    def discard(self):
        for fd in (self.stdin, self.stdout, self.stderr, self.status, self.spec):
            try:
                os.close(fd)
            except OSError:
                pass


def fork_shepherd(agent_pid, base_env):
    """Forks an idle shepherd; returns its handle (in the agent)."""
    pipes = [os.pipe() for _ in range(5)]  # stdin, stdout, stderr, status, spec
    (stdin_r, stdin_w), (stdout_r, stdout_w), (stderr_r, stderr_w), (status_r, status_w), (spec_r, spec_w) = pipes
    try:
        pid = os.fork()
    except OSError:
        for pair in pipes:
            for fd in pair:
                os.close(fd)
        raise
    if pid == 0:
        serve(agent_pid, base_env, (stdin_r, stdout_w, stderr_w, status_w, spec_r))
    for fd in (stdin_r, stdout_w, stderr_w, status_w, spec_r):
        os.close(fd)
    for fd in (stdin_w, stdout_r, stderr_r, status_r):
        os.set_blocking(fd, False)
    return Shepherd(pid, stdin_w, stdout_r, stderr_r, status_r, spec_w)


def serve(agent_pid, base_env, fds):
    """The shepherd's whole life, in the agent's forked child. Never returns."""
    try:
        become_shepherd(agent_pid, fds)
        request = read_spec()
        if request is None:
            return  # dismissed: the agent is closing
        leader = start_command(request, base_env)
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)  # the command's pipes end with the command, not with us
        os.close(null)
        if leader is None:
            report("exit %d" % CANNOT_RUN)
            return
        report("pid %d" % leader)
        ended = wait_for(leader)
        end_leftovers()
        if os.WIFSIGNALED(ended):
            report("signal %d" % os.WTERMSIG(ended))
        else:
            report("exit %d" % (os.WEXITSTATUS(ended) if os.WIFEXITED(ended) else 1))
    finally:
        os._exit(0)


def become_shepherd(agent_pid, fds):
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGCHLD, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, on_agent_gone)
    # The five go to 0-4; each is copied above them first, so no dup2 overwrites one still to be copied.
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in fds]
    for target, fd in enumerate(high):
        os.dup2(fd, target, inheritable=target <= 2)
    close_descriptors_above(SPEC_FD + 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != agent_pid:
        on_agent_gone(signal.SIGTERM, None)  # the agent died before the death signal was armed
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def read_spec():
    chunks = []
    while True:
        chunk = os.read(SPEC_FD, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(SPEC_FD)
    return json.loads(b"".join(chunks).decode("utf-8")) if chunks else None


def command_env(base, request):
    env = {} if request.get("clearEnv") else dict(base)
    for name, value in (request.get("env") or {}).items():
        env[name.encode("utf-8", "surrogateescape")] = value.encode("utf-8", "surrogateescape")
    return env


def start_command(request, base_env):
    """The command's first process, in a session of its own, with our stdio (its pipes); None when it cannot start."""
    cwd = request.get("cwd")
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:
            os.write(2, ("codecall: no such working directory: %s\n" % cwd).encode("utf-8", "replace"))
            report("exit %d" % NO_WORKING_DIRECTORY)
            os._exit(0)
    argv = request.get("argv") or ["/bin/sh", "-c", request["command"]]
    try:
        # Python ignores these; a command expects them at their defaults (`yes | head` ends by SIGPIPE).
        defaults = (signal.SIGPIPE, signal.SIGXFSZ)
        return os.posix_spawnp(argv[0], argv, command_env(base_env, request), setsid=True, setsigdef=defaults)
    except OSError as error:
        os.write(2, ("codecall: cannot run %s: %s\n" % (argv[0], error.strerror or error)).encode("utf-8", "replace"))
        return None


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


def on_agent_gone(_signum, _frame):
    end_leftovers()
    os._exit(0)
