"""socket_client, run directly against a host played by this test on a Unix socket."""
import json
import os
import shutil
import socket
import tempfile
import threading
import time
import types
import unittest

from _codecall_protocol import ToolError
import socket_client
from socket_client import SocketClient

TOKEN = "t" * 64
TIMEOUT = 10


def tool_error(future):
    """The ToolError a call failed with (a failure of another kind, or none, fails the test)."""
    error = future.exception(TIMEOUT)
    assert isinstance(error, ToolError), error
    return error


def answer(request_id, **member):
    return json.dumps(dict({"jsonrpc": "2.0", "id": request_id}, **member)).encode() + b"\n"


class FakeHost:
    """Listens on a socket; each connection is handed to `serve(hello, reader, connection)` in a
    thread of its own, after the hello was read and, unless `serve` answers it, accepted."""

    def __init__(self, serve, accept_hello=True):
        self.dir = tempfile.mkdtemp(prefix="codecall-test-")
        self.path = os.path.join(self.dir, "rpc.sock")
        self.hellos = []
        self._serve = serve
        self._accept_hello = accept_hello
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.path)
        self._server.listen(8)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._run, args=(connection,), daemon=True).start()

    def _run(self, connection):
        with connection, connection.makefile("rb") as reader:
            hello = json.loads(reader.readline())
            self.hellos.append(hello)
            if self._accept_hello:
                connection.sendall(answer(0, result={"protocol": 1}))
            self._serve(hello, reader, connection)

    def close(self):
        self._server.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def disconnect(client):
    """Closes the client's connection: a client lives as long as its process and has no close()."""
    if client._connection is not None:
        disconnect_from(client._connection)


def disconnect_from(connection):
    # Shut down first: a thread that reads answers then sees the end and lets go of the socket.
    connection.sock.shutdown(socket.SHUT_RDWR)
    deadline = time.monotonic() + TIMEOUT
    while connection.reading and time.monotonic() < deadline:
        time.sleep(0.01)
    connection.sock.close()


class SocketClientTest(unittest.TestCase):
    def host(self, serve, accept_hello=True):
        host = FakeHost(serve, accept_hello)
        self.addCleanup(host.close)
        return host

    def client(self, path, token=TOKEN):
        client = SocketClient(path, token)
        self.addCleanup(disconnect, client)
        return client

    def test_fails_calls_outside_a_run(self):
        error = tool_error(SocketClient(None, None).submit("tools/call", {"name": "echo"}))
        self.assertEqual(str(error), "echo: CODECALL_RPC_SOCKET is not set: this module only works inside a codecall run")

    def test_fails_calls_when_the_host_cannot_be_reached(self):
        error = tool_error(SocketClient("/nonexistent/codecall/rpc.sock", TOKEN).submit("tools/call", {"name": "echo"}))
        self.assertIn("echo: cannot reach the codecall host", str(error))

    def test_presents_the_token_and_gives_each_call_its_own_answer(self):
        def serve(_hello, reader, connection):
            first, second = json.loads(reader.readline()), json.loads(reader.readline())
            # Answered in the other order: the ids, not the order, pair them up.
            for request in (second, first):
                connection.sendall(answer(request["id"], result=request["params"]["arguments"]["text"].upper()))
            reader.readline()  # Until the client goes.

        client = self.client(self.host(serve).path, TOKEN)
        calls = [client.submit("tools/call", {"name": "echo", "arguments": {"text": text}}) for text in ("a", "b")]
        self.assertEqual([call.result(TIMEOUT) for call in calls], ["A", "B"])

    def test_sends_the_hello_with_token_and_protocol(self):
        def serve(_hello, reader, connection):
            request = json.loads(reader.readline())
            connection.sendall(answer(request["id"], result=None))

        host = self.host(serve)
        self.client(host.path, TOKEN).submit("tools/call", {"name": "echo", "arguments": {}}).result(TIMEOUT)
        self.assertEqual(host.hellos, [{"jsonrpc": "2.0", "id": 0, "method": "hello", "params": {"token": TOKEN, "protocol": 1}}])

    def test_raises_the_host_s_refusal_of_the_hello(self):
        def refuse(_hello, _reader, connection):
            connection.sendall(answer(0, error={"code": -32001, "message": "bad token"}))

        error = tool_error(self.client(self.host(refuse, accept_hello=False).path, "wrong").submit("tools/call", {"name": "echo"}))
        self.assertEqual((error.message, error.code), ("bad token", -32001))

    def test_raises_the_host_s_refusal_of_a_connection_closed_before_the_hello(self):
        # A host past its run's connection limit answers at once and closes: the client's hello then
        # meets a closed socket (EPIPE), and the answer waiting unread is what the call must say.
        directory = tempfile.mkdtemp(prefix="codecall-test-")
        self.addCleanup(shutil.rmtree, directory, True)
        path = os.path.join(directory, "rpc.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(server.close)
        server.bind(path)
        server.listen(1)
        refused = threading.Event()

        def refuse():
            connection, _ = server.accept()
            connection.sendall(answer(None, error={"code": -32600, "message": "Connection refused: this run already has 2 connections"}))
            connection.close()
            refused.set()

        threading.Thread(target=refuse, daemon=True).start()

        class HelloAfterRefusal(socket.socket):
            """A socket whose first send waits until the host has answered and closed (stdlib only)."""

            def sendall(self, data, *args):
                refused.wait(TIMEOUT)
                return super().sendall(data, *args)

        # Only the client's sockets: the host's accepted one must send at once.
        original = socket_client.socket
        socket_client.socket = types.SimpleNamespace(socket=HelloAfterRefusal, AF_UNIX=socket.AF_UNIX, SOCK_STREAM=socket.SOCK_STREAM)
        try:
            error = tool_error(self.client(path, TOKEN).submit("tools/call", {"name": "echo"}))
        finally:
            socket_client.socket = original
        self.assertEqual((error.message, error.code), ("Connection refused: this run already has 2 connections", -32600))

    def test_raises_for_a_hello_answer_that_is_not_an_object(self):
        def garble(_hello, _reader, connection):
            connection.sendall(b"[1, 2]\n")

        error = tool_error(self.client(self.host(garble, accept_hello=False).path, TOKEN).submit("tools/call", {"name": "echo"}))
        self.assertEqual(error.message, "malformed error from host: [1, 2]")

    def test_an_unreadable_answer_fails_only_its_own_call(self):
        def serve(_hello, reader, connection):
            first, second = json.loads(reader.readline()), json.loads(reader.readline())
            too_deep = b'{"jsonrpc":"2.0","id":%d,"result":' % first["id"] + b"[" * 100000 + b"]" * 100000 + b"}\n"
            connection.sendall(too_deep + answer(second["id"], result="fine"))
            reader.readline()

        client = self.client(self.host(serve).path, TOKEN)
        deep = client.submit("tools/call", {"name": "deep", "arguments": {}})
        fine = client.submit("tools/call", {"name": "fine", "arguments": {}})
        self.assertEqual(fine.result(TIMEOUT), "fine")
        error = tool_error(deep)
        self.assertEqual(error.tool, "deep")
        self.assertIn("unreadable answer from the codecall host: RecursionError", error.message)

    def test_pending_calls_fail_when_the_host_closes_and_the_next_call_reconnects(self):
        connections = []

        def serve(_hello, reader, connection):
            connections.append(connection)
            request = json.loads(reader.readline())
            if len(connections) == 2:
                connection.sendall(answer(request["id"], result="again"))
                reader.readline()
            # The first connection closes with the call unanswered.

        client = self.client(self.host(serve).path, TOKEN)
        error = tool_error(client.submit("tools/call", {"name": "lost", "arguments": {}}))
        self.assertEqual(str(error), "lost: the connection to the codecall host closed; the call was not retried")
        self.addCleanup(disconnect_from, client._connection)
        self.assertEqual(client.submit("tools/call", {"name": "echo", "arguments": {}}).result(TIMEOUT), "again")
        self.assertEqual(len(connections), 2)

    def test_refuses_arguments_that_are_not_json_without_connecting(self):
        error = tool_error(SocketClient("/nonexistent/codecall/rpc.sock", TOKEN).submit("tools/call", {"name": "echo", "arguments": {"x": object()}}))
        self.assertIn("arguments must be JSON-serialisable", str(error))


if __name__ == "__main__":
    unittest.main()
