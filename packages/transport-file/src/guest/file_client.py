# codecall file client: JSON-RPC requests and responses as files in the run's private RPC dir.
#
# A call writes guest-tmp/<id>.json (the run token, a newline, the frame) and renames it into
# requests/, so the host never sees a partial request. The id (also the JSON-RPC id) is the pid and
# a uuid4: unique across threads and processes, forked ones included. ONE poller thread per process
# watches responses/ for the ids it owns and settles their futures; it looks every 1 ms for 50 ms
# after a submit or an answer, then backs off to 20 ms while nothing arrives. When the host stops serving (the `closed`
# marker) or the RPC dir is gone, every pending call fails with ToolError instead of hanging.
import threading as _threading
import time as _time
import uuid as _uuid

_RPC_DIR = _os.environ.get("CODECALL_RPC_DIR")
_RPC_TOKEN = _os.environ.get("CODECALL_RPC_TOKEN")
_FAST_POLL_SECONDS = 0.001
_SLOW_POLL_SECONDS = 0.02
_FAST_WINDOW_SECONDS = 0.05


class _FileClient:
    def __init__(self, rpc_dir, token):
        self._dir = rpc_dir
        self._token_line = ((token or "") + "\n").encode("utf-8")
        self._reset()

    def _reset(self):
        # Also the fork handler: the child owns none of the parent's calls, and must not inherit a
        # lock held by another thread or a poller thread that does not exist in it.
        self._lock = _threading.Lock()
        self._pending = {}
        self._wake = _threading.Event()
        self._poller = None

    def submit(self, method, params):
        tool = params.get("name")
        if not self._dir:
            return _codecall_failed_future(
                ToolError("CODECALL_RPC_DIR is not set: this module only works inside a codecall run", tool=tool)
            )
        request_id = "%d-%s" % (_os.getpid(), _uuid.uuid4().hex)
        try:
            frame = _codecall_encode(request_id, method, params)
        except ToolError as error:
            return _codecall_failed_future(error)
        future = _futures.Future()
        with self._lock:
            self._pending[request_id] = (future, tool)
            if self._poller is None:
                self._poller = _threading.Thread(target=self._poll, name="codecall-rpc-poller", daemon=True)
                self._poller.start()
        name = request_id + ".json"
        staged = _os.path.join(self._dir, "guest-tmp", name)
        try:
            descriptor = _os.open(staged, _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL, 0o600)
            with _os.fdopen(descriptor, "wb") as handle:
                handle.write(self._token_line)
                handle.write(frame)
            _os.rename(staged, _os.path.join(self._dir, "requests", name))
        except OSError as error:
            with self._lock:
                self._pending.pop(request_id, None)
            _codecall_settle(future, error=ToolError("cannot reach the codecall host: %s" % error, tool=tool))
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
        responses = _os.path.join(self._dir, "responses")
        closed_marker = _os.path.join(self._dir, "closed")
        own_prefix = "%d-" % _os.getpid()
        delay = _FAST_POLL_SECONDS
        active_since = _time.monotonic()
        while True:
            with self._lock:
                if not self._pending:
                    self._poller = None
                    return
            # Checked before the scan: the host writes its last answers before the marker.
            closed = _os.path.exists(closed_marker)
            try:
                names = [name for name in _os.listdir(responses) if name.startswith(own_prefix) and name.endswith(".json")]
            except OSError:
                names, closed = [], True
            for name in names:
                self._deliver(_os.path.join(responses, name), name[: -len(".json")])
            if closed:
                self._fail_pending("the codecall host stopped serving this run; the call was not answered")
                continue
            if names:
                active_since = _time.monotonic()
            if self._wake.wait(delay):
                self._wake.clear()
                active_since = _time.monotonic()
            # Answers to quick calls come within milliseconds: look often for a while, then back off.
            if _time.monotonic() - active_since < _FAST_WINDOW_SECONDS:
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
                _os.unlink(path)
            except OSError:
                pass
            return
        future, tool = entry
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            _os.unlink(path)
            message = _codecall_decode(data)
        except OSError as error:
            _codecall_settle(future, error=ToolError("unreadable answer from the codecall host: %s" % error, tool=tool))
            return
        except ToolError as error:
            # Too deep for `json` (RecursionError) or garbled: only this call fails.
            error.tool = tool
            _codecall_settle(future, error=error)
            return
        _codecall_settle_response(future, message, tool)

    def _fail_pending(self, message, stop=False):
        with self._lock:
            orphans = list(self._pending.values())
            self._pending.clear()
            if stop:
                self._poller = None
        for future, tool in orphans:
            _codecall_settle(future, error=ToolError(message, tool=tool))


_codecall_client = _FileClient(_RPC_DIR, _RPC_TOKEN)
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_codecall_client._reset)


def _codecall_submit(method, params):
    return _codecall_client.submit(method, params)
