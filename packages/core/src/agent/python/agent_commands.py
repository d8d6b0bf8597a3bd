# codecall environment agent: one command, as the agent runs it.
#
# Its stdin, stdout and stderr are pipes carried as streams; a shepherd (agent_shepherd) starts it
# and holds its whole process tree. Ending it — on the host's kill, on its timeout (enforced here,
# so it holds when the host is gone), or when the agent itself stops — means signalling every
# process below the shepherd, and the command's session, however they escaped.
import os
import signal

from agent_streams import Endpoint, Sink, Source
from agent_wire import EVENT, json_frame
from launcher import descendants, signal_all

# While a killed command has not ended, its tree is killed again this often (forks in flight).
KILL_REPEAT_SECONDS = 0.2
# Rounds after which a shepherd that still has not reported its killed command's end is killed too.
SHEPHERD_KILL_ROUNDS = 25


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
        self.timed_out = False
        self.terminating = False
        self.killing = False
        self.kill_rounds = 0
        self.finished = False
        self.timers = []
        cwd = request.get("cwd")
        if cwd and not os.path.isdir(cwd):
            raise RequestError("INVALID_PATH", "Working directory does not exist: %s" % cwd)
        pipes = []
        try:
            for _ in range(3):
                pipes.extend(os.pipe())
        except BaseException:
            # Out of descriptors (EMFILE) part-way: the pipes made so far must not leak, or running
            # out gets easier each time.
            for fd in pipes:
                os.close(fd)
            raise
        stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w = pipes
        try:
            self.shepherd = agent.assign_shepherd(self, request, (stdin_r, stdout_w, stderr_w))
        except BaseException:
            for fd in (stdin_w, stdout_r, stderr_r):
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w):
                os.close(fd)  # the shepherd has its copies
        for fd in (stdin_w, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        self.stdin = Sink(agent, Endpoint(agent, stdin_w), request["stdin"])
        Source(agent, Endpoint(agent, stdout_r), request["stdout"])
        Source(agent, Endpoint(agent, stderr_r), request["stderr"])
        timeout_ms = request.get("timeoutMs")
        if timeout_ms is not None:
            grace = (request.get("graceMs") or 0) / 1000.0
            self.timers.append(agent.timers.call_later(timeout_ms / 1000.0, lambda: self.expire(grace)))

    def on_line(self, line):
        """A line from its shepherd: its first process's pid, or how it ended."""
        if line.startswith(b"pid "):
            self.leader = int(line[4:])
        elif line.startswith(b"exit "):
            self.finish(int(line[5:]), None)
        elif line.startswith(b"signal "):
            signum = int(line[7:])
            self.finish(128 + signum, signum)

    def on_shepherd_gone(self, status):
        """Its shepherd died without a word (killed): the command went with it, or is being ended."""
        signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signal.SIGKILL
        self.finish(128 + signum, signum)
        self.agent.end_orphans()  # what the dead shepherd held is the agent's now

    def finish(self, code, signum):
        if self.finished:
            return
        self.finished = True
        for entry in self.timers:
            self.agent.timers.cancel(entry)
        self.agent.commands.pop(self.id, None)
        event = {"exit": code, "signal": signal_name(signum), "timedOut": self.timed_out}
        self.agent.send(json_frame(EVENT, self.id, event))
        self.stdin.refuse()  # nothing reads it any more
        self.agent.release_shepherd(self.shepherd)

    def signal_tree(self, signum):
        signal_all(descendants(self.shepherd.pid), signum)
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
        self.kill_rounds += 1
        if self.kill_rounds > SHEPHERD_KILL_ROUNDS:
            # Its tree has been killed for seconds and its shepherd still says nothing (stopped, or
            # wedged): no end would ever be reported, and the host would wait for it. The shepherd's
            # death ends the command as killed (Agent.shepherd_gone), and what it held is ended then.
            try:
                os.kill(self.shepherd.pid, signal.SIGKILL)
            except OSError:
                pass  # gone already: its exit is being reaped
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
