# Guest side of the connection-bounds cases (see describe-backpressure.ts): raw connections next to
# the codecall client's own, to reach the run-wide limits of a byte-stream transport. Appended to by
# the case, which calls one of the functions below.
import json
import os
import socket
import time

from codecall import ToolError, echo  # pyright: ignore[reportMissingImports]

PATH = os.environ["CODECALL_RPC_SOCKET"]
TOKEN = os.environ["CODECALL_RPC_TOKEN"]


class Raw:
    """One connection of our own, past its hello (so the host has surely seen it)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(PATH)
        self.reader = self.sock.makefile("rb")

    def hello(self):
        return self.ask({"jsonrpc": "2.0", "id": 0, "method": "hello", "params": {"token": TOKEN, "protocol": 1}})

    def ask(self, request):
        try:
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # A host refusing the connection answers at once and may close it first: its answer waits to be read.
        return self.answer()

    def answer(self):
        """The next answer; raises at the end of the stream (see `closed`)."""
        line = self.reader.readline()
        if not line:
            raise EOFError("the host closed the connection")
        return json.loads(line)

    def closed(self):
        """True when the host has closed the connection (nothing more to read): an end of stream, or a
        reset, which is how Linux ends a connection closed with the guest's bytes still unread."""
        try:
            return self.reader.readline() == b""
        except ConnectionResetError:
            return True


def too_many_connections(limit):
    """Fills the run's connections (the client's own is one), then tries one more, raw and by the client."""
    held = [Raw() for _ in range(limit - 1)]
    print(all("result" in raw.hello() for raw in held))
    print(echo("served"))
    extra = Raw()
    answer = extra.hello()
    print(answer["id"], answer["error"]["code"], answer["error"]["message"].split(":")[0], extra.closed())
    # Closed, not only half-closed: a refused guest that never closes its end holds no host descriptor.
    # (Until the host has closed it, bytes are taken and dropped; only a host that keeps it open loops on.)
    while True:
        try:
            extra.sock.sendall(b"\n")
        except OSError:
            break
        time.sleep(0.01)
    print("closed by the host")
    # A forked worker opens a connection of its own: its calls fail with the host's reason.
    pid = os.fork()
    if pid == 0:
        try:
            echo("from the child")
            print("child served", flush=True)
        except ToolError as error:
            print("child refused:", "already has %d connections" % limit in str(error), flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
    print(echo("still served"))


def unfinished_frames(connections, text_bytes):
    """Leaves a large unfinished frame on each connection, then finishes them all."""
    raws = [Raw() for _ in range(connections)]
    for raw in raws:
        assert "result" in raw.hello()
    for number, raw in enumerate(raws, 1):
        request = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x" * text_bytes}}}
        raw.sock.sendall(json.dumps(request).encode()[:-3])
    for raw in raws:
        raw.sock.sendall(b"}}}\n")
    outcomes = []
    for raw in raws:
        answer = raw.answer()
        if "result" in answer:
            outcomes.append("echoed" if answer["result"] == "x" * text_bytes else "wrong")
        else:
            outcomes.append("%d %s" % (answer["error"]["code"], answer["error"]["message"].split(";")[0]))
    print(json.dumps(sorted(outcomes)))
    # Nothing is held any more: every connection is served again.
    again = [raw.ask({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "again"}}}) for raw in raws]
    print(all(answer.get("result") == "again" for answer in again))
