# codecall environment agent: one long-lived helper per environment, started by the host through
# the backend's own exec with its source sent down its stdin (nothing is installed). Every later
# operation is a message on that one open stream instead of a new exec: commands (argv or `sh -c`,
# env, cwd, stdin, timeout, the whole tree killed), their stdio streamed with flow control, files
# written, read and removed, temp dirs, and Unix sockets whose connections go to the host (the
# stream transport's relay). The frames are in agent_wire.py.
#
# On Linux it is a child subreaper, and each command runs under a shepherd of its own (see
# agent_shepherd.py), so orphaned daemons end with their command's tree. When its stdin ends (the
# host is gone or done) it ends everything it started and exits.
import json
import os
import platform
import signal
import sys

from agent_commands import Command, RequestError
from agent_files import make_temp_dir, read_file, remove, write_file
from agent_loop import READ, WRITE, Timers, Watcher
from agent_shepherd import fork_shepherd
from agent_sockets import Listener
from agent_wire import (
    CANCEL,
    CHUNK,
    CREDIT,
    DATA,
    END,
    FROM_HOST,
    HELLO,
    MAGIC,
    PROTOCOL,
    REPLY,
    REQUEST,
    WINDOW,
    FrameReader,
    ProtocolError,
    frame,
    json_frame,
    read_credit,
)
from launcher import PR_SET_CHILD_SUBREAPER, children_table, descendants, prctl, reap_children, signal_all

# While this much waits to go to the host, no stream is read (the host is behind on all of them).
MAX_BACKLOG = 1024 * 1024
# Shepherds kept waiting for commands once theirs have ended; the others exit.
MAX_IDLE = 4
READ_SIZE = 256 * 1024


class Agent:
    def __init__(self):
        self.pid = os.getpid()
        self.watcher = Watcher()
        self.quiet = Watcher()  # what is watched while the host is behind: its input, our output, signals
        self.timers = Timers()
        self.reader = FrameReader(FROM_HOST)
        self.out = bytearray()
        self.sources = {}
        self.sinks = {}
        self.commands = {}
        self.shepherds = {}  # pid -> Shepherd, each alive one
        self.idle = []  # shepherds waiting for a command
        self.refilling = False
        self.listeners = {}
        self.next_stream = 1
        self.done = False
        self.problem = None
        self.base_env = dict(os.environb)
        self.subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1)
        self.wakeup_r, wakeup_w = os.pipe()
        for fd in (0, 1, self.wakeup_r, wakeup_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wakeup_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, self.on_stop_signal)
        for watcher in (self.watcher, self.quiet):
            watcher.set(0, READ, self.read_host)
            watcher.set(self.wakeup_r, READ, self.on_signal)

    # -- talking to the host ------------------------------------------------------------------

    def hello(self):
        env = {}
        for name, value in self.base_env.items():
            env[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
        self.out += MAGIC
        info = {
            "protocol": PROTOCOL,
            "pid": self.pid,
            "python": platform.python_version(),
            "subreaper": self.subreaper,
            "window": WINDOW,
            "chunk": CHUNK,
            "env": env,
        }
        self.send(json_frame(HELLO, 0, info))

    def send(self, data):
        self.out += data

    def reply(self, request_id, result):
        self.send(json_frame(REPLY, request_id, {"ok": result}))

    def reply_error(self, request_id, code, message):
        self.send(json_frame(REPLY, request_id, {"error": {"code": code, "message": message}}))

    def backlogged(self):
        return len(self.out) >= MAX_BACKLOG

    def flush(self, _mask=0):
        if self.out:
            try:
                written = os.write(1, self.out)
                del self.out[:written]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self.done = True  # the host is gone
                return
        for watcher in (self.watcher, self.quiet):
            watcher.set(1, WRITE if self.out else 0, self.flush)

    def read_host(self, _mask):
        try:
            data = os.read(0, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.done = True  # the host is gone or done: end everything
            return
        try:
            for kind, channel, payload in self.reader.feed(data):
                self.dispatch(kind, channel, payload)
        except ProtocolError as error:
            self.fail(str(error))

    def dispatch(self, kind, channel, payload):
        if kind == REQUEST:
            self.handle_request(channel, payload)
        elif kind == DATA:
            sink = self.sinks.get(channel)
            if sink is not None:  # else refused or closed already; the host learns it from CANCEL
                sink.on_data(payload)
        elif kind == END:
            sink = self.sinks.get(channel)
            if sink is not None:
                sink.on_end()
        elif kind == CREDIT:
            source = self.sources.get(channel)
            if source is not None:
                source.on_credit(read_credit(payload))
        elif kind == CANCEL:
            source = self.sources.get(channel)
            if source is not None:
                source.stop()

    def handle_request(self, request_id, payload):
        op = None
        try:
            request = json.loads(payload.decode("utf-8"))
            op = request["op"]
            result = OPERATIONS[op](self, request_id, request)
        except RequestError as error:
            self.refuse(request_id, op, payload, error.code, str(error))
        except OSError as error:
            self.refuse(request_id, op, payload, "FAILED", error.strerror or str(error))
        except (KeyError, ValueError, TypeError) as error:
            self.refuse(request_id, op, payload, "BAD_REQUEST", "a request the agent cannot read: %r" % (error,))
        else:
            if result is not None:
                self.reply(request_id, result)

    def refuse(self, request_id, op, payload, code, message):
        # A refused transfer still closes its stream, so neither side waits on it.
        if op in STREAM_REFUSAL:
            stream = json.loads(payload.decode("utf-8")).get("stream")
            if isinstance(stream, int):
                self.send(frame(STREAM_REFUSAL[op], stream))
        self.reply_error(request_id, code, message)

    def new_stream_id(self):
        stream_id = self.next_stream
        self.next_stream += 2
        return stream_id

    # -- processes ----------------------------------------------------------------------------

    def on_signal(self, _mask):
        try:
            while os.read(self.wakeup_r, 512):
                pass
        except (BlockingIOError, InterruptedError):
            pass
        self.reap()

    def on_stop_signal(self, _signum, _frame):
        self.done = True

    def reap(self):
        for pid, status in reap_children()[0]:
            shepherd = self.shepherds.get(pid)
            if shepherd is not None:
                self.shepherd_gone(shepherd, status)

    def assign_shepherd(self, command, request, stdio):
        """Hands `command` to an idle shepherd (forking one when none waits) and returns it."""
        while True:
            if not self.idle:
                # A fork takes a while (long on a loaded machine, and a burst of commands forks one
                # each): what is ready for the host goes first, so it keeps hearing from us.
                self.flush()
            shepherd = self.idle.pop() if self.idle else self.new_shepherd()
            try:
                shepherd.assign(command, request, stdio)
                break
            except OSError:
                self.shepherd_gone(shepherd, None)  # it died waiting; its exit is reaped later
        if not self.idle and not self.refilling:
            # A burst of commands finds the next one waiting: forked once this turn's replies are out.
            self.refilling = True
            self.timers.call_later(0, self.refill)
        return shepherd

    def release_shepherd(self, shepherd):
        """Its command has ended: it waits for the next (up to MAX_IDLE do), or is dismissed."""
        shepherd.command = None
        if shepherd.pid not in self.shepherds:
            return
        if len(self.idle) < MAX_IDLE:
            self.idle.append(shepherd)
        else:
            self.forget_shepherd(shepherd)
            shepherd.dismiss()

    def new_shepherd(self):
        shepherd = fork_shepherd(self.pid, self.base_env)
        self.shepherds[shepherd.pid] = shepherd
        self.watcher.set(shepherd.control, READ, lambda _mask: self.read_shepherd(shepherd))
        return shepherd

    def refill(self):
        self.refilling = False
        self.flush()  # the replies of this turn first: the fork takes a while
        if not self.idle and not self.done:
            try:
                self.idle.append(self.new_shepherd())
            except OSError:
                pass  # out of processes: the next command forks its own, or says why it cannot

    def read_shepherd(self, shepherd):
        lines = shepherd.read_lines()
        if lines is None:
            self.watcher.forget(shepherd.control)  # it exited; reaping says how
            return
        for line in lines:
            if shepherd.command is not None:
                shepherd.command.on_line(line)

    def forget_shepherd(self, shepherd):
        self.shepherds.pop(shepherd.pid, None)
        self.watcher.forget(shepherd.control)
        if shepherd in self.idle:
            self.idle.remove(shepherd)

    def shepherd_gone(self, shepherd, status):
        """A shepherd died (or could not be reached); its command, if any, ends as killed."""
        self.forget_shepherd(shepherd)
        shepherd.dismiss()
        command = shepherd.command
        if command is not None and not command.finished and status is not None:
            command.on_shepherd_gone(status)
        elif command is not None and status is None:
            shepherd.command = None  # never handed over: the caller tries another shepherd

    def end_orphans(self):
        """Kills what a dead shepherd's tree left: everything re-parented to the agent that is not a shepherd."""
        table = children_table()
        for pid in table.get(self.pid, ()):
            if pid not in self.shepherds:
                signal_all([pid] + descendants(pid, table), signal.SIGKILL)

    # -- the loop -----------------------------------------------------------------------------

    def fail(self, problem):
        self.problem = problem
        self.done = True

    def run(self):
        self.hello()
        self.refilling = True
        self.timers.call_later(0, self.refill)  # the first command finds its shepherd waiting
        while not self.done:
            self.flush()
            if self.done:
                break
            watcher = self.quiet if self.backlogged() else self.watcher
            for callback, mask in watcher.poll(self.timers.timeout()):
                try:
                    callback(mask)
                except ProtocolError as error:
                    self.fail(str(error))
                if self.done:
                    break
            self.timers.run_due()

    def shutdown(self):
        for command in list(self.commands.values()):
            command.signal_tree(signal.SIGKILL)
        for listener in list(self.listeners.values()):
            listener.close()
        for shepherd in self.idle:
            shepherd.dismiss()  # its socket ends: it exits
        if self.problem:
            os.write(2, ("codecall agent: %s\n" % self.problem).encode("utf-8", "replace"))


def spawn(agent, request_id, request):
    agent.commands[request_id] = Command(agent, request_id, request)
    return {"pid": agent.commands[request_id].shepherd.pid}


def kill(agent, _request_id, request):
    command = agent.commands.get(request["command"])
    if command is not None:
        command.kill((request.get("graceMs") or 0) / 1000.0)
    return {}


def ping(_agent, _request_id, _request):
    """Answers at once: the host's proof, while it waits on us, that we still read and answer."""
    return {}


def listen(agent, request_id, request):
    agent.listeners[request_id] = Listener(agent, request_id, request["path"])
    return {}


def unlisten(agent, _request_id, request):
    listener = agent.listeners.pop(request["listener"], None)
    if listener is not None:
        listener.close()
    return {}


# Each returns its reply, or None when it replies later (once its stream is through).
OPERATIONS = {
    "spawn": spawn,
    "kill": kill,
    "ping": ping,
    "write_file": write_file,
    "read_file": read_file,
    "remove": remove,
    "mkdtemp": make_temp_dir,
    "listen": listen,
    "unlisten": unlisten,
}
STREAM_REFUSAL = {"write_file": CANCEL, "read_file": END}


def main():
    agent = Agent()
    try:
        agent.run()
    finally:
        agent.shutdown()
    sys.stderr.flush()
    os._exit(2 if agent.problem else 0)


if __name__ == "__main__":
    main()
