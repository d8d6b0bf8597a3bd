# codecall environment agent: one command, as the agent runs it.
#
# Its stdin, stdout and stderr are pipes carried as streams; a shepherd (agent_shepherd) starts it
# and holds its whole process tree. Ending it — on the host's kill, on its timeout (enforced here,
# so it holds when the host is gone), or when the agent itself stops — means signalling every
# process below the shepherd, and the command's session, however they escaped.
import json
import os
import signal

from agent_loop import READ
from agent_streams import Endpoint, Sink, Source
from launcher import descendants, signal_all
from agent_wire import EVENT, json_frame

# While a killed command has not ended, its tree is killed again this often (forks in flight).
KILL_REPEAT_SECONDS = 0.2


class RequestError(Exception):
    """A request the agent refuses; `code` tells the host which error to raise."""

    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


class Command:
    def __init__(self, agent, command_id, request):
        self.agent = agent
        self.id = command_id
        self.leader = 0
        self.status_lines = bytearray()
        self.status_done = False
        self.reaped = None  # the shepherd's wait status once reaped
        self.timed_out = False
        self.terminating = False
        self.killing = False
        self.finished = False
        self.timers = []
        cwd = request.get("cwd")
        if cwd and not os.path.isdir(cwd):
            raise RequestError("INVALID_PATH", "Working directory does not exist: %s" % cwd)
        shepherd = agent.take_shepherd()
        self.shepherd_pid = shepherd.pid
        self.status_fd = shepherd.status
        agent.shepherds[shepherd.pid] = self
        self.stdin = Sink(agent, Endpoint(agent, shepherd.stdin), request["stdin"])
        Source(agent, Endpoint(agent, shepherd.stdout), request["stdout"])
        Source(agent, Endpoint(agent, shepherd.stderr), request["stderr"])
        agent.watcher.set(self.status_fd, READ, self.read_status)
        try:
            shepherd.assign(json.dumps(request).encode("utf-8"))
        except OSError:
            pass  # it died idle (killed): its status ends, and the command is reported as killed
        timeout_ms = request.get("timeoutMs")
        if timeout_ms is not None:
            grace = (request.get("graceMs") or 0) / 1000.0
            self.timers.append(agent.timers.call_later(timeout_ms / 1000.0, lambda: self.expire(grace)))

    def read_status(self, _mask):
        try:
            data = os.read(self.status_fd, 256)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data:
            self.status_lines += data
            for line in self.complete_lines():
                if line.startswith(b"pid "):
                    self.leader = int(line[4:])
            return
        self.agent.watcher.forget(self.status_fd)
        os.close(self.status_fd)
        self.status_done = True
        self.settle()

    def on_reaped(self, status):
        self.reaped = status
        self.settle()

    def settle(self):
        """Reports the exit once the shepherd has both said how the command ended and exited."""
        if self.finished or not self.status_done or self.reaped is None:
            return
        self.finished = True
        for entry in self.timers:
            self.agent.timers.cancel(entry)
        self.agent.shepherds.pop(self.shepherd_pid, None)
        self.agent.commands.pop(self.id, None)
        code, signum = self.outcome()
        event = {"exit": code, "signal": signal_name(signum), "timedOut": self.timed_out}
        self.agent.send(json_frame(EVENT, self.id, event))
        self.stdin.refuse()  # nothing reads it any more

    def complete_lines(self):
        return bytes(self.status_lines).split(b"\n")[:-1]

    def outcome(self):
        for line in self.complete_lines():
            if line.startswith(b"exit "):
                return int(line[5:]), None
            if line.startswith(b"signal "):
                signum = int(line[7:])
                return 128 + signum, signum
        # The shepherd died without a word (killed): the command went with it, or is being ended
        # (orphans of a dead shepherd are the agent's, which ends them).
        status = self.reaped or 0
        signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signal.SIGKILL
        self.agent.end_orphans()
        return 128 + signum, signum

    def signal_tree(self, signum):
        signal_all(descendants(self.shepherd_pid), signum)
        if self.leader:
            try:
                os.killpg(self.leader, signum)
            except OSError:
                pass

    def kill(self, grace):
        """SIGTERM to the tree, SIGKILL after `grace` seconds (at once for 0), repeated until it ends."""
        if self.finished or self.killing:
            return
        if grace > 0:
            if not self.terminating:
                self.terminating = True
                self.signal_tree(signal.SIGTERM)
                self.timers.append(self.agent.timers.call_later(grace, lambda: self.kill(0)))
            return
        self.killing = True
        self.kill_round()

    def kill_round(self):
        if self.finished:
            return
        self.signal_tree(signal.SIGKILL)
        self.timers.append(self.agent.timers.call_later(KILL_REPEAT_SECONDS, self.kill_round))

    def expire(self, grace):
        if self.finished:
            return
        self.timed_out = True
        self.kill(grace)


def signal_name(signum):
    if signum is None:
        return None
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "SIG%d" % signum
