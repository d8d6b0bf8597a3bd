# codecall environment agent: shepherds, the processes that run commands.
#
# A shepherd runs one command at a time and is its child subreaper: it starts the command in a
# session of its own, and every process the command orphans comes back to the shepherd rather than
# to init or the agent, so the processes below the shepherd are exactly the command's tree,
# whatever its members did (setsid, double fork, a cleared environment). When the command's first
# process exits, the shepherd kills and reaps what is left of the tree, reports, and waits for the
# next command. Should the agent die, the kernel sends it SIGTERM (PR_SET_PDEATHSIG) and it ends
# the tree: nothing a command started outlives the agent.
#
# A fork of the agent (a Python process) costs more than the command it would run, so shepherds are
# kept: forked ahead of need, then reused. Each talks to the agent over a Unix socket: the agent
# sends a request — "<length>\n" and the spawn request's JSON, with the command's stdin, stdout and
# stderr pipes attached (SCM_RIGHTS) — and the shepherd answers with lines: "pid <leader pid>",
# then "exit <code>" or "signal <number>". The command is started with posix_spawn (vfork and
# exec), which copies nothing. A request may name a run's archive (`unpack`): its files are written
# first, so a script needs no launcher of its own (it would only repeat the shepherd's work).
import array
import json
import os
import signal
import socket

from agent_tree import PR_SET_PDEATHSIG, close_descriptors_above
from launcher import PR_SET_CHILD_SUBREAPER, end_leftovers, prctl, unpack_failure

CONTROL_FD = 3
# What a command exits with when it cannot be started (as a shell says it).
CANNOT_RUN = 127
# What a command exits with when the run's files it asked for cannot be unpacked (as the launcher does).
CANNOT_UNPACK = 1
NO_WORKING_DIRECTORY = 125
FD_BYTES = array.array("i").itemsize
CLOEXEC_ON_RECEIVE = getattr(socket, "MSG_CMSG_CLOEXEC", 0)


class Shepherd:
    """The agent's handle on a shepherd: its pid, its socket, and the command it runs (if any)."""

    def __init__(self, pid, control):
        self.pid = pid
        self.control = control
        self.command = None
        self.lines = bytearray()

    def assign(self, command, request, stdio):
        """Hands the shepherd a command and the child's ends of its pipes; OSError when it is gone."""
        self.command = command
        payload = json.dumps(request).encode("utf-8")
        message = b"%d\n" % len(payload) + payload
        self.control.setblocking(True)
        try:
            sent = self.control.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", stdio))])
            self.control.sendall(message[sent:])
        finally:
            self.control.setblocking(False)

    def read_lines(self):
        """The complete lines it sent, or None once its socket has ended (it exited)."""
        try:
            data = self.control.recv(4096)
        except (BlockingIOError, InterruptedError):
            return []
        except OSError:
            data = b""
        if not data:
            return None
        self.lines += data
        *complete, rest = bytes(self.lines).split(b"\n")
        self.lines = bytearray(rest)
        return complete

    def dismiss(self):
        """Closes its socket: an idle shepherd then exits."""
        self.control.close()


def fork_shepherd(agent_pid, base_env):
    """Forks an idle shepherd; returns its handle (in the agent)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        raise
    if pid == 0:
        serve(agent_pid, base_env, theirs.fileno())
    theirs.close()
    ours.setblocking(False)
    return Shepherd(pid, ours)


def serve(agent_pid, base_env, control_fd):
    """The shepherd's whole life, in the agent's forked child. Never returns."""
    try:
        become_shepherd(agent_pid, control_fd)
        control = socket.socket(fileno=CONTROL_FD)
        home = open_home()  # where commands run, or resolve a relative cwd from
        while True:
            received = receive(control)
            if received is None:
                return  # dismissed, or the agent is gone
            request, stdio = received
            run_one(control, request, stdio, base_env, home)
    finally:
        os._exit(0)


def open_home():
    """A descriptor of the shepherd's working directory (the agent's), to go back to before each
    command. O_PATH where there is one: a directory that can be entered but not read (mode 0711)
    cannot be opened O_RDONLY by a user other than its owner."""
    return os.open(".", getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0))


def become_shepherd(agent_pid, control_fd):
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGCHLD, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, on_agent_gone)
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.dup2(control_fd, CONTROL_FD, inheritable=False)
    close_descriptors_above(CONTROL_FD + 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != agent_pid:
        on_agent_gone(signal.SIGTERM, None)  # the agent died before the death signal was armed
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def receive(control):
    """The next request and its three descriptors; None when the agent closed the socket."""
    data = bytearray()
    stdio = []
    while b"\n" not in data or len(data) < data.index(b"\n") + 1 + int(data[: data.index(b"\n")]):
        chunk, ancillary, _, _ = control.recvmsg(65536, socket.CMSG_SPACE(3 * FD_BYTES), CLOEXEC_ON_RECEIVE)
        if not chunk:
            return None
        data += chunk
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                stdio.extend(array.array("i", payload[: len(payload) - len(payload) % FD_BYTES]))
    for fd in stdio:
        os.set_inheritable(fd, False)
    header = data.index(b"\n")
    return json.loads(bytes(data[header + 1 :]).decode("utf-8")), stdio


def command_env(base, request):
    env = {} if request.get("clearEnv") else dict(base)
    for name, value in (request.get("env") or {}).items():
        env[name.encode("utf-8", "surrogateescape")] = value.encode("utf-8", "surrogateescape")
    return env


def run_one(control, request, stdio, base_env, home):
    """Runs one command to its end, its tree with it, and reports."""
    try:
        leader = start_command(control, request, stdio, base_env, home)
    except Exception as error:
        # Whatever else stops a start (a request it cannot read), the command fails, not the shepherd.
        if len(stdio) == 3:
            tell(stdio[2], "codecall: cannot run the command: %s\n" % error)
        report(control, "exit %d" % CANNOT_RUN)
        leader = None
    for fd in stdio:
        os.close(fd)  # the command's pipes end with the command, not with us
    if leader is None:
        return
    report(control, "pid %d" % leader)
    ended = wait_for(leader)
    end_leftovers()
    if os.WIFSIGNALED(ended):
        report(control, "signal %d" % os.WTERMSIG(ended))
    else:
        report(control, "exit %d" % (os.WEXITSTATUS(ended) if os.WIFEXITED(ended) else 1))


def start_command(control, request, stdio, base_env, home):
    """The command's first process, in a session of its own, on its pipes; None (reported) when it cannot start."""
    stdin, stdout, stderr = stdio
    cwd = request.get("cwd")
    try:
        # Home first, always: a relative cwd is the agent's, not the last command's (shepherds are reused).
        os.fchdir(home)
        if cwd:
            os.chdir(cwd)
    except OSError:
        tell(stderr, "codecall: no such working directory: %s\n" % cwd)
        report(control, "exit %d" % NO_WORKING_DIRECTORY)
        return None
    # A run's files, unpacked here rather than by a launcher the command would have to start first.
    failure = unpack_failure(request["unpack"]) if request.get("unpack") else None
    if failure is not None:
        tell(stderr, failure)
        report(control, "exit %d" % CANNOT_UNPACK)
        return None
    argv = request.get("argv") or ["/bin/sh", "-c", request["command"]]
    wiring = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate((stdin, stdout, stderr))]
    try:
        # Python ignores these; a command expects them at their defaults (`yes | head` ends by SIGPIPE).
        defaults = (signal.SIGPIPE, signal.SIGXFSZ)
        return os.posix_spawnp(argv[0], argv, command_env(base_env, request), file_actions=wiring, setsid=True, setsigdef=defaults)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the command or its environment
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        tell(stderr, "codecall: cannot run %s: %s\n" % (argv[0], reason))
        report(control, "exit %d" % CANNOT_RUN)
        return None


def tell(stderr, message):
    """Writes `message` on the command's stderr; lost, not fatal, when nobody reads it any more."""
    try:
        os.write(stderr, message.encode("utf-8", "replace"))
    except OSError:
        pass  # The host cancelled the command's stderr (EPIPE).


def report(control, line):
    try:
        control.sendall((line + "\n").encode())
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
