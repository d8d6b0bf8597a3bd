"""codecall file client: JSON-RPC requests and responses as files in the run's private RPC dir.
Shipped as `_codecall_client`.

A call writes guest-tmp/<id>.json (the run token, a newline, the frame) and renames it into
requests/, so the host never sees a partial request. The id (also the JSON-RPC id) is the pid and
16 random bytes in hex: unique across threads and processes, forked ones included (not a uuid4:
importing `uuid` imports `platform`, milliseconds of every script's start). ONE poller thread per
process watches responses/ for the ids it owns and settles their futures; it looks every 1 ms for
50 ms after a submit or an answer, then backs off to 20 ms while nothing arrives. When the host
stops serving (the `closed` marker) or the RPC dir is gone, every pending call fails with ToolError
instead of hanging.
"""
from __future__ import annotations

import concurrent.futures
import os
import threading
import time

from _codecall_protocol import ToolError, decode_answer, encode_request, failed_future, settle, settle_response

_FAST_POLL_SECONDS = 0.001
_SLOW_POLL_SECONDS = 0.02
_FAST_WINDOW_SECONDS = 0.05


class FileClient:
    """Writes requests into the RPC dir and settles their futures from the answers a poller finds."""

    def __init__(self, rpc_dir, token):
        self._dir = rpc_dir
        self._token_line = ((token or "") + "\n").encode("utf-8")
        self._reset()

    def _reset(self):
        # Also the fork handler: the child owns none of the parent's calls, and must not inherit a
        # lock held by another thread or a poller thread that does not exist in it.
        self._lock = threading.Lock()
        self._pending = {}
        self._wake = threading.Event()
        self._poller = None

    def submit(self, method, params):
        tool = params.get("name")
        if not self._dir:
            return failed_future(
                ToolError("CODECALL_RPC_DIR is not set: this module only works inside a codecall run", tool=tool)
            )
        request_id = "%d-%s" % (os.getpid(), os.urandom(16).hex())
        try:
            frame = encode_request(request_id, method, params)
        except ToolError as error:
            return failed_future(error)
        future = concurrent.futures.Future()
        with self._lock:
            self._pending[request_id] = (future, tool)
            if self._poller is None:
                self._poller = threading.Thread(target=self._poll, name="codecall-rpc-poller", daemon=True)
                self._poller.start()
        name = request_id + ".json"
        staged = os.path.join(self._dir, "guest-tmp", name)
        try:
            descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(self._token_line)
                handle.write(frame)
            os.rename(staged, os.path.join(self._dir, "requests", name))
        except OSError as error:
            with self._lock:
                self._pending.pop(request_id, None)
            settle(future, error=ToolError("cannot reach the codecall host: %s" % error, tool=tool))
            return future
        self._wake.set()
        return future

    def _poll(self):
        try:
            self._poll_until_idle()
        except Exception as error:
            # Whatever went wrong, no call may wait for a poller that is gone: they fail, and the
            # next call starts a new poller.
            self._fail_pending(
                "the codecall client stopped polling for answers (%s: %s); the call was not answered" % (type(error).__name__, error),
                stop=True,
            )

    def _poll_until_idle(self):
        responses = os.path.join(self._dir, "responses")
        closed_marker = os.path.join(self._dir, "closed")
        own_prefix = "%d-" % os.getpid()
        delay = _FAST_POLL_SECONDS
        active_since = time.monotonic()
        while True:
            with self._lock:
                if not self._pending:
                    self._poller = None
                    return
            # Checked before the scan: the host writes its last answers before the marker.
            closed = os.path.exists(closed_marker)
            try:
                names = [name for name in os.listdir(responses) if name.startswith(own_prefix) and name.endswith(".json")]
            except OSError:
                names, closed = [], True
            for name in names:
                self._deliver(os.path.join(responses, name), name[: -len(".json")])
            if closed:
                self._fail_pending("the codecall host stopped serving this run; the call was not answered")
                continue
            if names:
                active_since = time.monotonic()
            if self._wake.wait(delay):
                self._wake.clear()
                active_since = time.monotonic()
            # Answers to quick calls come within milliseconds: look often for a while, then back off.
            if time.monotonic() - active_since < _FAST_WINDOW_SECONDS:
                delay = _FAST_POLL_SECONDS
            else:
                delay = min(delay * 1.5, _SLOW_POLL_SECONDS)

    def _deliver(self, path, request_id):
        with self._lock:
            entry = self._pending.pop(request_id, None)
        if entry is None:
            # Nobody waits for it (sent again after a lost poll, or left by an earlier process
            # with this pid): remove it so it is not listed forever.
            try:
                os.unlink(path)
            except OSError:
                pass
            return
        future, tool = entry
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            os.unlink(path)
            message = decode_answer(data)
        except OSError as error:
            settle(future, error=ToolError("unreadable answer from the codecall host: %s" % error, tool=tool))
            return
        except ToolError as error:
            # Too deep for `json` (RecursionError) or garbled: only this call fails.
            error.tool = tool
            settle(future, error=error)
            return
        settle_response(future, message, tool)

    def _fail_pending(self, message, stop=False):
        with self._lock:
            orphans = list(self._pending.values())
            self._pending.clear()
            if stop:
                self._poller = None
        for future, tool in orphans:
            settle(future, error=ToolError(message, tool=tool))


client = FileClient(os.environ.get("CODECALL_RPC_DIR"), os.environ.get("CODECALL_RPC_TOKEN"))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=client._reset)


def submit(method: str, params: dict) -> concurrent.futures.Future:
    """Sends one request to the host as a file (see _codecall_client.pyi)."""
    return client.submit(method, params)
