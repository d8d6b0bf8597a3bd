"""Runs agent.py as a child process and plays the host on its stdin and stdout."""
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from agent_wire import (
    CHUNK,
    CREDIT,
    DATA,
    END,
    EVENT,
    HEADER,
    HELLO,
    MAGIC,
    REPLY,
    REQUEST,
    WINDOW,
    frame,
    credit_frame,
    json_frame,
    read_credit,
)

TIMEOUT = 10.0


class AgentProcess:
    """The agent under test; frames it sends are queued by a reader thread."""

    def __init__(self, extra_env=None, cwd=None):
        env = dict(os.environ)
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-B", "-m", "agent"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self.stdin = self.process.stdin
        self.stdout = self.process.stdout
        self.stderr = self.process.stderr
        self.frames = queue.Queue()
        self.next_id = 0
        assert self.stdout.read(len(MAGIC)) == MAGIC
        self.thread = threading.Thread(target=self.read_frames, daemon=True)
        self.thread.start()
        kind, _, payload = self.next_frame()
        assert kind == HELLO, kind
        self.hello = json.loads(payload)
        self.pending = []  # frames taken from the queue while looking for another one

    def read_frames(self):
        while True:
            header = self.stdout.read(HEADER.size)
            if len(header) < HEADER.size:
                self.frames.put(None)
                return
            kind, channel, length = HEADER.unpack(header)
            self.frames.put((kind, channel, self.stdout.read(length)))

    def next_frame(self, timeout=TIMEOUT):
        item = self.frames.get(timeout=timeout)
        if item is None:
            raise EOFError("the agent closed its stdout")
        return item

    def take(self, match, timeout=TIMEOUT):
        """The first frame (earlier pending ones included) for which match(kind, channel, payload) holds."""
        for index, item in enumerate(self.pending):
            if match(*item):
                return self.pending.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            item = self.next_frame(max(0.01, deadline - time.monotonic()))
            if match(*item):
                return item
            self.pending.append(item)

    def send(self, data):
        self.stdin.write(data)
        self.stdin.flush()

    def new_id(self):
        self.next_id += 2
        return self.next_id

    def request(self, op, **params):
        request_id = self.new_id()
        params["op"] = op
        self.send(json_frame(REQUEST, request_id, params))
        return request_id

    def reply(self, request_id, timeout=TIMEOUT):
        _, _, payload = self.take(lambda kind, channel, _p: kind == REPLY and channel == request_id, timeout)
        return json.loads(payload)

    def call(self, op, **params):
        return self.reply(self.request(op, **params))

    def event(self, target, timeout=TIMEOUT):
        _, _, payload = self.take(lambda kind, channel, _p: kind == EVENT and channel == target, timeout)
        return json.loads(payload)

    def read_stream(self, stream, timeout=TIMEOUT, credit=True):
        """Every byte of `stream` up to its END, granting credit as it comes."""
        data = bytearray()
        while True:
            kind, _, payload = self.take(lambda kind, channel, _p: channel == stream and kind in (DATA, END), timeout)
            if kind == END:
                return bytes(data)
            data += payload
            if credit:
                self.send(credit_frame(stream, len(payload)))

    def send_stream(self, stream, data):
        """Sends `data` as the host would: in chunks, never more than the window ahead of the credit."""
        in_flight = 0
        for start in range(0, len(data), CHUNK):
            piece = data[start : start + CHUNK]
            while in_flight + len(piece) > WINDOW:
                _, _, payload = self.take(lambda kind, channel, _p: kind == CREDIT and channel == stream)
                in_flight -= read_credit(payload)
            self.send(frame(DATA, stream, piece))
            in_flight += len(piece)

    def spawn(self, command, stdin=b"", close_stdin=True, **options):
        """Starts `command`; returns (command id, stdin, stdout, stderr stream ids)."""
        streams = [self.new_id() for _ in range(3)]
        command_id = self.request("spawn", command=command, stdin=streams[0], stdout=streams[1], stderr=streams[2], **options)
        reply = self.reply(command_id)
        assert "ok" in reply, reply
        if stdin:
            self.send_stream(streams[0], stdin)
        if close_stdin:
            self.send(frame(END, streams[0]))
        return command_id, streams[0], streams[1], streams[2]

    def run(self, command, **options):
        """Runs `command` to its end: (exit event, stdout, stderr)."""
        command_id, _, stdout, stderr = self.spawn(command, **options)
        out = self.read_stream(stdout)
        err = self.read_stream(stderr)
        return self.event(command_id), out, err

    def close(self):
        try:
            self.stdin.close()
        except OSError:
            pass  # the agent is gone: its pipe is broken
        if self.process.poll() is None:
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(TIMEOUT)
        self.stdout.close()
        self.stderr.close()


class AgentTestCase(unittest.TestCase):
    """A running agent (`self.agent`) and a scratch directory (`self.dir`) for each test."""

    def setUp(self):
        self.agent = AgentProcess()
        self.addCleanup(self.agent.close)
        self.dir = tempfile.mkdtemp(prefix="codecall-agent-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def path(self, *names):
        return os.path.join(self.dir, *names)


def alive(pid):
    """True while `pid` runs (a zombie counts as ended)."""
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("State:"):
                    return "Z" not in line.split()[1]
    except OSError:
        return False
    return False


def wait_gone(pid, seconds=TIMEOUT):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def read_pid(path, seconds=TIMEOUT):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(path) as file:
                text = file.read().strip()
            if text:
                return int(text)
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError("no pid in %s" % path)
