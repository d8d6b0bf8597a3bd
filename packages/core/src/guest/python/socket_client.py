"""codecall socket client: JSON-RPC frames over the run's private Unix socket — the host's own (uds
transport) or a relay's inside the environment (stream transport). Shipped as `_codecall_client`.

One connection per process, opened on the first call (so forked workers and late first calls
work). Calls from any number of threads are in flight together, each request with its own id, and
answers are read leader/follower: at any time at most one thread reads the socket (the leader),
settling the calls of every answer it reads. A blocking `call()` that finds no leader becomes one
and reads until its own answer arrives, so a lone caller gets its answer without waking another
thread (a hand-off costs more than the round trip itself). When it has its answer it hands the
reading to a call still waiting (which wakes holding the role) or, when only futures wait
(`submit()`, the async variants), to the connection's background reader thread, started on first
need.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import os
import socket
import threading

from _codecall_protocol import ToolError, answer_id, decode_answer, encode_request, failed_future, response_outcome, settle

# The reader role's holder while the background reader thread reads (see SocketConnection.reader).
BACKGROUND = "background"
# Bytes asked of one recv: answers are mostly small; a large one takes a few calls.
_RECV_BYTES = 65536
_CLOSED = "the connection to the codecall host closed; the call was not retried"


class _Call:
    """One request in flight: its tool, and either the future of `submit()` or, for a blocking
    `call()` that waits while another thread leads, a held lock released to wake it (when its
    outcome is in, or when it is handed the reading: it is then its connection's `reader`)."""

    __slots__ = ("tool", "future", "wake", "done", "result", "error", "connection", "request_id")

    def __init__(self, tool, future=None):
        self.tool = tool
        self.future = future
        # Where it is registered (set by _start before it is): what _give_up undoes.
        self.connection = None
        self.request_id = None
        self.wake = None
        self.done = False
        self.result = None
        self.error = None

    def settle(self, result=None, error=None):
        """Records the outcome (the future's, for a submitted call). Called with the state lock held."""
        if self.future is not None:
            settle(self.future, result, error)
            return
        self.result, self.error, self.done = result, error, True
        if self.wake is not None:
            self.wake.release()

    def outcome(self):
        if self.error is not None:
            raise self.error
        return self.result


class SocketConnection:
    """One connection to the host, past its `hello`. `pending` maps request ids to `_Call`s;
    `reader` holds the reader role. Both change only under the client's lock; the receive buffer
    (`rest`, `parts`) is touched only by the thread that holds the role."""

    def __init__(self, path, token):
        self.pending = {}
        # Who holds the reader role: a blocking call (its thread reads), BACKGROUND, or None. One
        # store hands it over, so an exception that lands part-way through a hand-over leaves the
        # role with its holder, who gives it up again (see SocketClient._give_up).
        self.reader: _Call | str | None = None
        self.alive = True
        self.rest = b""
        self.parts = []
        self.send_lock = threading.Lock()
        # The background reader for futures: started on first need, woken by releasing `idle`.
        self.background = None
        self.idle = threading.Lock()
        self.idle.acquire()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(path)
            refused = None
            try:
                self.sock.sendall(encode_request(0, "hello", {"token": token, "protocol": 1}))
            except OSError as error:
                # The host may have answered and closed before the hello (a run past its connection
                # limit): its answer, waiting unread, says why better than EPIPE does.
                refused = error
            line = self.next_line()
            if line is None and refused is not None:
                raise refused
            reply = decode_answer(line) if line else {"error": {"message": "the codecall host closed the connection"}}
        except (OSError, ToolError):
            self.sock.close()
            raise
        if not isinstance(reply, dict) or "error" in reply:
            self.sock.close()
            raise ToolError.from_rpc(reply.get("error") if isinstance(reply, dict) else reply)

    @property
    def reading(self):
        """A thread holds the reader role."""
        return self.reader is not None

    def next_line(self):
        """The next answer (newline included), or None at the end of the stream. The buffer lives
        in the connection, not in locals, so an exception raised while waiting (a signal handler's,
        a KeyboardInterrupt in a leading main thread) loses no byte of it."""
        while True:
            rest = self.rest
            newline = rest.find(b"\n")
            if newline >= 0:
                self.rest = rest[newline + 1 :]
                line = rest[: newline + 1]
                if self.parts:
                    self.parts.append(line)
                    line = b"".join(self.parts)
                    self.parts = []
                return line
            if rest:
                self.parts.append(rest)
                self.rest = b""
            data = self.sock.recv(_RECV_BYTES)
            if not data:
                return None
            self.rest = data


class SocketClient:
    """Sends requests on this process's connection (opened on first use) and delivers their answers."""

    def __init__(self, path, token):
        self._path = path
        self._token = token
        self._reset()

    def _reset(self):
        self._lock = threading.Lock()
        self._connection = None
        self._ids = itertools.count(1)

    def _start(self, method, params, call):
        """Encodes the request and registers `call` on the connection (opened if need be), claiming
        the reader role for it when nobody holds it. Returns (connection, frame, whether it claimed
        the role): a follower may be handed the role as soon as the lock is released. Raises
        ToolError."""
        if not self._path:
            raise ToolError("CODECALL_RPC_SOCKET is not set: this module only works inside a codecall run", tool=call.tool)
        request_id = next(self._ids)
        data = encode_request(request_id, method, params)
        with self._lock:
            connection = self._connection
            if connection is None or not connection.alive:
                try:
                    connection = SocketConnection(self._path, self._token)
                except OSError as error:
                    raise ToolError("cannot reach the codecall host: %s" % error, tool=call.tool) from None
                self._connection = connection
            call.connection, call.request_id = connection, request_id
            connection.pending[request_id] = call
            if connection.reader is None:
                connection.reader = call
            elif call.future is None:
                call.wake = threading.Lock()
                call.wake.acquire()
            return connection, data, connection.reader is call

    def _send(self, connection, data, call):
        """Sends a registered request; raises ToolError when the connection fails."""
        try:
            with connection.send_lock:
                connection.sock.sendall(data)
        except OSError as error:
            raise ToolError("lost the connection to the codecall host: %s" % error, tool=call.tool) from None

    def _give_up(self, call):
        """Unregisters a call that will not take its answer (its send failed, or an exception
        interrupted it: KeyboardInterrupt, a signal handler's), and passes the reader role on if
        it holds it, so that no other call waits for a reader that is gone. Safe at any point,
        `_start` included, and more than once."""
        connection = call.connection
        if connection is None:
            return  # Not registered anywhere.
        with self._lock:
            connection.pending.pop(call.request_id, None)
            if connection.reader is call:
                self._pass_reading(connection)

    def call(self, method, params):
        """Sends one request and blocks until its answer: see _codecall_client.pyi."""
        call = _Call(params.get("name"))
        # All of it is covered, _start included: an exception may land between any two bytecodes
        # (a signal raised as a lock is let go, after the send, before the wait), and a call that
        # leaves without giving up the role would leave every later call waiting for a reader
        # that never comes.
        try:
            connection, data, claimed = self._start(method, params, call)
            self._send(connection, data, call)
            if not claimed:
                wake = call.wake
                assert wake is not None  # _start makes one for every blocking call that follows.
                wake.acquire()  # Its outcome is in, or it was handed the reading.
                if call.done:
                    return call.outcome()
            self._lead(connection, call)
        except BaseException:
            self._give_up(call)
            raise
        return call.outcome()

    def submit(self, method, params):
        """Sends one request and returns its future: see _codecall_client.pyi."""
        future = concurrent.futures.Future()
        call = _Call(params.get("name"), future)
        try:
            connection, data, _ = self._start(method, params, call)
            self._send(connection, data, call)
            with self._lock:
                if connection.reader is call:
                    # The role goes to the background reader.
                    connection.reader = BACKGROUND
                    self._wake_background(connection)
        except ToolError as error:
            self._give_up(call)
            return failed_future(error)
        except BaseException:
            self._give_up(call)
            raise
        return future

    def _lead(self, connection, own):
        """Reads answers, settling each one's call, until `own` is settled; then passes the role on.
        An exception while reading leaves the bytes read so far in the connection's buffer, and the
        role to the caller to give up."""
        while not own.done:
            if not self._read_one(connection):
                return  # The connection is gone, and the role with it.
        with self._lock:
            self._pass_reading(connection)

    def _pass_reading(self, connection):
        """Gives up the reader role (held by the caller, with the state lock held): to a blocking
        call that waits, else to the background reader when futures wait, else to nobody."""
        if not connection.alive:
            connection.reader = None
            return
        background = False
        for call in connection.pending.values():
            if call.future is None:
                if call.wake is not None and call is not connection.reader:
                    connection.reader = call  # The hand-over, in one store; then the wake.
                    call.wake.release()
                    return
            else:
                background = True
        if background:
            connection.reader = BACKGROUND
            self._wake_background(connection)
        else:
            connection.reader = None

    def _wake_background(self, connection):
        """Wakes the background reader, already made the connection's `reader`."""
        if connection.background is None:
            connection.background = threading.Thread(
                target=self._read_in_background, args=(connection,), name="codecall-rpc-reader", daemon=True
            )
            connection.background.start()
        connection.idle.release()

    def _read_in_background(self, connection):
        """The background reader: whenever handed the role, reads until no call is pending."""
        while connection.alive:
            connection.idle.acquire()
            while True:
                with self._lock:
                    if not connection.pending:
                        connection.reader = None
                        break
                    if any(call.future is None for call in connection.pending.values()):
                        # A blocking call reads faster for itself than through a hand-off.
                        self._pass_reading(connection)
                        break
                try:
                    if not self._read_one(connection):
                        return
                except Exception as error:
                    # No call may wait for a reader that is gone: they fail, and the next reconnects.
                    reason = "the codecall client stopped reading answers (%s: %s); the call was not retried"
                    self._close(connection, reason % (type(error).__name__, error))
                    return

    def _read_one(self, connection):
        """Reads one answer and settles its call. False (every pending call failed) when the
        connection closed or broke. What else interrupts the read (a signal handler's exception in
        a leading main thread) is the caller's to handle."""
        try:
            line = connection.next_line()
        except OSError:
            line = None
        if line is None:
            self._close(connection, _CLOSED)
            return False
        # An answer that cannot be decoded fails only its own call (its id read from the start of
        # the line), never the connection; one nobody owns (garbled, an unknown id) is dropped.
        try:
            message = decode_answer(line)
            request_id = message.get("id") if isinstance(message, dict) else None
        except ToolError as error:
            message, request_id = error, answer_id(line)
        with self._lock:
            try:
                call = connection.pending.pop(request_id, None)
            except TypeError:  # An unhashable id.
                call = None
            if call is not None:
                if isinstance(message, ToolError):
                    message.tool = call.tool
                    call.settle(error=message)
                else:
                    call.settle(*response_outcome(message, call.tool))
        return True

    def _close(self, connection, reason):
        with self._lock:
            connection.alive = False
            connection.reader = None
            orphans = list(connection.pending.values())
            connection.pending.clear()
            for call in orphans:
                call.settle(error=ToolError(reason, tool=call.tool))
            # Lets a background reader that waits for the role see the end. (The socket itself is
            # left to the garbage collector: another thread may still be sending on it.)
            connection.idle.release()

    def after_fork(self):
        # The child must not share the parent's socket or inherit a lock held by another thread.
        # (Closing the child's copy of the descriptor leaves the parent's connection alone.)
        if self._connection is not None:
            self._connection.sock.close()
        self._reset()


client = SocketClient(os.environ.get("CODECALL_RPC_SOCKET"), os.environ.get("CODECALL_RPC_TOKEN"))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=client.after_fork)


def call(method: str, params: dict):
    """Sends one request to the host and blocks until its answer (see _codecall_client.pyi)."""
    return client.call(method, params)


def submit(method: str, params: dict) -> concurrent.futures.Future:
    """Sends one request to the host on this process's connection (see _codecall_client.pyi)."""
    return client.submit(method, params)
