"""codecall socket client: JSON-RPC frames over the run's private Unix socket — the host's own (uds
transport) or a relay's inside the environment (stream transport). Shipped as `_codecall_client`.

One connection per process, opened on the first call (so forked workers and late first calls
work); one reader thread per connection; a future per request id, so calls from any number of
threads are in flight together and each gets its own answer.
"""
from __future__ import annotations

import concurrent.futures
import os
import socket
import threading

from _codecall_protocol import ToolError, answer_id, decode_answer, encode_request, failed_future, settle, settle_response


class SocketConnection:
    """One connection to the host, past its `hello`; `pending` maps request ids to (future, tool)."""

    def __init__(self, path, token):
        self.pending = {}
        self.send_lock = threading.Lock()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(path)
            self.reader = self.sock.makefile("rb")
            self.sock.sendall(encode_request(0, "hello", {"token": token, "protocol": 1}))
            line = self.reader.readline()
            reply = decode_answer(line) if line else {"error": {"message": "the codecall host closed the connection"}}
        except (OSError, ToolError):
            self.sock.close()
            raise
        if not isinstance(reply, dict) or "error" in reply:
            self.sock.close()
            raise ToolError.from_rpc(reply.get("error") if isinstance(reply, dict) else reply)
        self.alive = True


class SocketClient:
    """Sends requests on this process's connection (opened on first use) and settles their futures."""

    def __init__(self, path, token):
        self._path = path
        self._token = token
        self._reset()

    def _reset(self):
        self._lock = threading.Lock()
        self._connection = None
        self._next_id = 1

    def _connected(self):
        # Called with self._lock held.
        connection = self._connection
        if connection is None or not connection.alive:
            connection = SocketConnection(self._path, self._token)
            self._connection = connection
            reader = threading.Thread(target=self._read_loop, args=(connection,), name="codecall-rpc-reader", daemon=True)
            reader.start()
        return connection

    def submit(self, method, params):
        tool = params.get("name")
        if not self._path:
            return failed_future(
                ToolError("CODECALL_RPC_SOCKET is not set: this module only works inside a codecall run", tool=tool)
            )
        future = concurrent.futures.Future()
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            try:
                data = encode_request(request_id, method, params)
                connection = self._connected()
            except ToolError as error:
                return failed_future(error)
            except OSError as error:
                return failed_future(ToolError("cannot reach the codecall host: %s" % error, tool=tool))
            connection.pending[request_id] = (future, tool)
        try:
            with connection.send_lock:
                connection.sock.sendall(data)
        except OSError as error:
            with self._lock:
                connection.pending.pop(request_id, None)
            settle(future, error=ToolError("lost the connection to the codecall host: %s" % error, tool=tool))
        return future

    def _read_loop(self, connection):
        closed = "the connection to the codecall host closed; the call was not retried"
        try:
            for line in connection.reader:
                try:
                    self._answer(connection, line)
                except Exception:
                    # An answer nobody can own (garbled, an id of the wrong type): the others go on.
                    continue
        except (OSError, ValueError):
            pass
        except Exception as error:
            closed = "the codecall client stopped reading answers (%s: %s); the call was not retried" % (type(error).__name__, error)
        finally:
            with self._lock:
                connection.alive = False
                orphans = list(connection.pending.values())
                connection.pending.clear()
            for future, tool in orphans:
                settle(future, error=ToolError(closed, tool=tool))

    def _answer(self, connection, line):
        """Settles the call one answer belongs to. An answer that cannot be decoded fails only its
        own call (its id read from the start of the line), never the connection."""
        try:
            message = decode_answer(line)
            request_id = message.get("id") if isinstance(message, dict) else None
        except ToolError as error:
            message, request_id = error, answer_id(line)
        with self._lock:
            entry = connection.pending.pop(request_id, None)
        if entry is None:
            return
        future, tool = entry
        if isinstance(message, ToolError):
            message.tool = tool
            settle(future, error=message)
        else:
            settle_response(future, message, tool)

    def after_fork(self):
        # The child must not share the parent's socket or inherit a lock held by another thread.
        self._reset()


client = SocketClient(os.environ.get("CODECALL_RPC_SOCKET"), os.environ.get("CODECALL_RPC_TOKEN"))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=client.after_fork)


def submit(method: str, params: dict) -> concurrent.futures.Future:
    """Sends one request to the host on this process's connection (see _codecall_client.pyi)."""
    return client.submit(method, params)
