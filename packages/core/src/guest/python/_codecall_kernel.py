"""codecall session kernel: one long-lived Python process that runs a session's cells, one after
another, in the same globals, so imports, variables, functions, open files and threads survive
from one cell to the next. The host (session/kernel.ts) runs it as a run's script, under the
launcher, and talks to it over two channels that a cell cannot reach by accident:

- Its stdin carries JSON lines from the host: first `{"nonce": ..., "module": ...}`, then
  `{"run": N, "code": ...}` to run cell N and `{"interrupt": N}` to interrupt it. The kernel keeps
  a private copy of that pipe and gives the cells /dev/null as stdin, so `input()` in a cell ends
  at once instead of eating the host's messages.
- Its stdout and stderr are the cells' own. Once it serves cells it writes a ready marker to
  stdout, and after each cell it flushes both and writes an end marker to each: the session's nonce (random, sent over stdin, never in the environment) then a
  JSON line. Everything before the marker is the cell's output; a cell that prints text looking
  like a marker cannot end its cell early without knowing the nonce.
- Each cell starts with the kernel's own stdout and stderr, whatever the cell before did to them:
  descriptors 1 and 2 closed or pointed elsewhere (`os.close(1)`, `os.dup2`), `sys.stdout`
  replaced or closed. Without that, one careless cell would silence every later one, and the
  kernel could not write its end marker — the host would wait for it until the time limit.

An interrupt is SIGINT to the kernel itself: KeyboardInterrupt in the cell, in the main thread,
also inside sleeps, waits, subprocess waits and tool calls. A cell that ignores it (SIG_IGN, or C
code that never returns to the interpreter) is the host's to kill after its grace time.

Tool calls carry the number of the cell whose code made them: the main thread runs the current
cell, a thread belongs to the cell that started it, a task given to a thread pool to the cell that
gave it, a forked child to the cell that forked it. The host refuses calls of a cell that has
ended, so a thread a cell left running cannot act on a later cell's budget.
"""
import json
import linecache
import os
import signal
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor

TYPE_CHECKING = False
if TYPE_CHECKING:  # Annotations only.
    from typing import Any, Callable, Optional

_KERNEL_FILE = __file__
# What the kernel's own path (reading requests, end markers) calls, bound now: cells share the
# modules, and one that patches `json.dumps` or `os.write` must not break every later cell's end.
_dumps, _loads = json.dumps, json.loads
_os_write, _os_kill, _os_getpid, _os_exit, _os_dup2, _os_fstat = os.write, os.kill, os.getpid, os._exit, os.dup2, os.fstat
_getrecursionlimit, _setrecursionlimit = sys.getrecursionlimit, sys.setrecursionlimit
_MAIN_THREAD = threading.main_thread()
_signal_signal, _signal_getsignal = signal.signal, signal.getsignal
_KERNEL_PID = _os_getpid()
# A task a thread pool runs belongs to the cell that submitted it (see `_pooled`).
_task_cell = threading.local()


def current_cell():
    # type: () -> Optional[int]
    """The cell the calling code belongs to; None for a thread Python did not start (a C thread)."""
    cell = getattr(_task_cell, "cell", None)
    if cell is not None:
        return cell
    return getattr(threading.current_thread(), "_codecall_cell", None)


def _tag_threads():
    original_start = threading.Thread.start

    def start(self):
        # type: (threading.Thread) -> None
        setattr(self, "_codecall_cell", current_cell())
        original_start(self)

    threading.Thread.start = start
    original_submit = ThreadPoolExecutor.submit

    def submit(self, fn, /, *args, **kwargs):  # pyright: ignore[reportSelfClsParameterName]
        return original_submit(self, _pooled(current_cell(), fn), *args, **kwargs)

    ThreadPoolExecutor.submit = submit  # pyright: ignore[reportAttributeAccessIssue]


def _pooled(cell, fn):
    # type: (Optional[int], Callable[..., Any]) -> Callable[..., Any]
    def in_cell(*args, **kwargs):
        _task_cell.cell = cell
        try:
            return fn(*args, **kwargs)
        finally:
            _task_cell.cell = None

    return in_cell


def _tag_tool_calls():
    """Adds the calling cell to every request of the transport's client. Done before the tools
    module is imported: it binds the client's functions when it is."""
    import _codecall_client  # pyright: ignore[reportMissingModuleSource]

    def tagged(params):
        # type: (dict) -> dict
        cell = current_cell()
        return params if cell is None else dict(params, cell=cell)

    submit = _codecall_client.submit
    _codecall_client.submit = lambda method, params: submit(method, tagged(params))
    blocking = getattr(_codecall_client, "call", None)
    if blocking is not None:
        setattr(_codecall_client, "call", lambda method, params: blocking(method, tagged(params)))


class Output:
    """The kernel's own stdout and stderr, kept to put back after each cell (see the module's
    docstring): private copies of descriptors 1 and 2 (not inherited by what cells run) and the
    text streams Python made for them."""

    def __init__(self):
        self.saved = {1: os.dup(1), 2: os.dup(2)}
        self.streams = {1: sys.stdout, 2: sys.stderr}

    def restore(self):
        for fd, name in ((1, "stdout"), (2, "stderr")):
            try:
                _os_dup2(self.saved[fd], fd)  # Also when unchanged: the same pipe again.
            except OSError:
                continue  # The cell closed the kernel's copy too (os.closerange): left as it is.
            # Put back first, checked after: dropping the cell's own stream may close the kernel's
            # (a wrapper the cell made over its buffer, io.TextIOWrapper(sys.stdout.buffer), does).
            setattr(sys, name, self.streams[fd])
            if not _usable(self.streams[fd]):
                self.streams[fd] = _reopened(fd, self.streams[fd])
                setattr(sys, name, self.streams[fd])


def _usable(stream):
    # type: (Any) -> bool
    """The stream can still be written: not None, not closed, not detached."""
    try:
        return stream is not None and not stream.closed
    except ValueError:
        return False  # Detached (io.TextIOWrapper(sys.stdout.detach())): its buffer is the cell's now.


def _reopened(fd, closed):
    # type: (int, Any) -> Any
    """A text stream on `fd` in place of `closed`, with its encoding and buffering."""
    import io

    line_buffering = bool(getattr(closed, "line_buffering", fd == 2))
    return io.TextIOWrapper(
        io.FileIO(fd, "w", closefd=False),
        encoding=getattr(closed, "encoding", None) or "utf-8",
        errors=getattr(closed, "errors", None) or "backslashreplace",
        line_buffering=line_buffering,
        write_through=fd == 2,
    )


class Kernel:
    def __init__(self, control, nonce):
        # type: (Any, bytes) -> None
        self.control = control
        self.nonce = nonce
        self.output = Output()
        self.channel = _identity(control.fileno())
        self.requests = []  # type: list
        self.arrived = threading.Condition()
        # Guards `running` against the reader's interrupt: no SIGINT is sent once a cell has ended.
        self.lock = threading.Lock()
        self.running = None  # type: Optional[int]
        self.ended = 0  # The last cell that has ended.
        self.interrupted = set()  # type: set
        self.leaving = False  # A cell broke the channel: the kernel ends after it.
        self.globals = self._cell_module().__dict__

    @staticmethod
    def _cell_module():
        # The cells' module is __main__ (pickle finds classes a cell defines there); the kernel's
        # own functions keep the globals of the module they were defined in.
        module = types.ModuleType("__main__")
        module.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = module
        return module

    def read_requests(self):
        """The reader thread: queues runs, interrupts the running cell, and ends the kernel when
        the host goes away (its end of stdin closes) or the channel breaks (a cell closed the
        kernel's descriptors: `os.closerange`). A kernel that can no longer hear the host ends, so
        the host sees it gone at once instead of waiting out a cell it can never send."""
        try:
            self._read_requests()
            # The end of the input: the host closed its end, or a cell closed the channel and
            # something it opened (/dev/null) took its number, to be read at the reader's next read.
            broken = _identity(self.control.fileno()) != self.channel
        except Exception:
            broken = True
        if broken:
            with self.lock:
                # The cell that broke it says so as it ends, and ends the kernel (see end_cell).
                if self.running is not None or self.leaving:
                    return
            _flush()
            _os_exit(1)  # Broken between cells (by a thread a cell left running).
        _flush()
        _os_exit(0)

    def _read_requests(self):
        for line in self.control:
            message = _loads(line)
            if "interrupt" in message:
                number = message["interrupt"]
                with self.lock:
                    # A cell not started yet is marked, and does not start (see `serve`); one
                    # that has ended is left alone.
                    if number > self.ended:
                        self.interrupted.add(number)
                    if self.running == number:
                        _os_kill(_os_getpid(), signal.SIGINT)
                continue
            with self.arrived:
                self.requests.append(message)
                self.arrived.notify()

    def next_request(self):
        # type: () -> dict
        """The first request waiting. It stays first in the queue until its cell has ended (see
        end_cell): an interrupt that lands as it is taken loses no request."""
        with self.arrived:
            while not self.requests:
                self.arrived.wait()
            return self.requests[0]

    def serve(self):
        while True:
            try:
                request = self.next_request()
            except KeyboardInterrupt:
                continue  # An interrupt that came just after its cell ended.
            number = request["run"]
            try:
                setattr(_MAIN_THREAD, "_codecall_cell", number)
                # An interrupt is the kernel's (a time limit's, the host's): a handler, or SIG_IGN,
                # that an earlier cell left for SIGINT would make this cell's ignore it.
                if _signal_getsignal(signal.SIGINT) is not signal.default_int_handler:
                    _signal_signal(signal.SIGINT, signal.default_int_handler)
                with self.lock:
                    self.running = number
                    cancelled = number in self.interrupted
                status, exit_code = ("interrupted", 130) if cancelled else self.run_cell(number, request["code"])
            except KeyboardInterrupt:
                # Landed in the kernel's own code, before the cell's or after it but before it was
                # reported (a time limit's interrupt as the cell ends): the cell ends all the same.
                status, exit_code = ("interrupted", 130) if number in self.interrupted else ("error", 1)
            except BaseException:
                status, exit_code = "error", 1  # Its report could not be written: see run_cell.
            self.end_cell(number, status, exit_code)

    def run_cell(self, number, code):
        # type: (int, str) -> tuple
        name = "<cell %d>" % number
        # An entry without a modification time: linecache keeps it, so tracebacks show the lines.
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        try:
            exec(compile(code, name, "exec", dont_inherit=True), self.globals)
            return "ok", 0
        except SystemExit as error:
            requested = error.code
            return "ok", self.reporting(lambda: _exit_status(requested), lambda: _safe_str(requested))
        except KeyboardInterrupt as error:
            if number in self.interrupted:
                return "interrupted", 130
            self.reporting(lambda: _report(error), lambda: _error_line(error))
            return "error", 1
        except BaseException as error:
            self.reporting(lambda: _report(error), lambda: _error_line(error))
            return "error", 1

    def reporting(self, report, line):
        # type: (Callable[[], Any], Callable[[], str]) -> Any
        """`report()` (a traceback, sys.exit's message: what a script's end prints), even when
        the cell left no way to print it: its stderr closed or gone, a recursion limit too low for
        the traceback module. Tried as the cell left things, then on the kernel's own stderr;
        failing that, `line()` is written as it is, and the status is 1."""
        _ensure_recursion_room()
        try:
            return report()
        except Exception:
            pass
        _flush()
        try:
            self.output.restore()
            return report()
        except Exception:
            _write(2, (line() + "\n").encode("utf-8", "backslashreplace"))
            return 1

    def end_cell(self, number, status, exit_code):
        # type: (int, str, int) -> None
        # All of it may be interrupted (a time limit's interrupt that comes as the cell ends, in
        # any system call here), and all of it may be done again.
        while True:
            try:
                if _os_getpid() != _KERNEL_PID:
                    # A child the cell forked that ran on past the cell's end: it ends here, as a
                    # script's child would at the end of the script.
                    _flush()
                    _os_exit(exit_code)
                _ensure_recursion_room()
                deaf = _identity(self.control.fileno()) != self.channel
                with self.arrived:
                    if self.requests and self.requests[0].get("run") == number:
                        self.requests.pop(0)
                with self.lock:
                    self.running = None
                    self.ended = number
                    self.interrupted.discard(number)
                    self.leaving = deaf
                _flush()
                try:
                    self.output.restore()
                except Exception:
                    pass  # The markers go to the descriptors themselves.
                if deaf:
                    status, exit_code = "error", 1
                    _write(2, _DEAF_KERNEL)
                stderr_marked = _write(2, self.nonce + _dumps({"cell": number}).encode() + b"\n")
                outcome = {"cell": number, "status": status, "exitCode": exit_code, "stderr": stderr_marked}
                if deaf:
                    outcome["kernelEnds"] = "the cell closed the session kernel's channel to the host, so the kernel had to end"
                _write(1, self.nonce + _dumps(outcome).encode() + b"\n")
                break
            except KeyboardInterrupt:
                continue  # A late interrupt: the host ignores a marker it has already seen.
        if deaf:
            _os_exit(1)


# The least recursion limit the kernel's own frames (ending a cell: serve, the markers' JSON) need.
_KERNEL_RECURSION_LIMIT = 100
_DEAF_KERNEL = b"codecall: this cell closed the session kernel's channel to the host (os.closerange?)\n"


def _ensure_recursion_room():
    # A cell's low limit would break its own end, and the printing of its traceback.
    if _getrecursionlimit() < _KERNEL_RECURSION_LIMIT:
        _setrecursionlimit(_KERNEL_RECURSION_LIMIT)


def _error_line(error):
    # type: (BaseException) -> str
    return "%s: %s" % (type(error).__name__, _safe_str(error))


def _safe_str(value):
    # type: (Any) -> str
    try:
        return str(value)
    except Exception:
        return "(unprintable)"


def _identity(fd):
    # type: (int) -> Optional[tuple]
    """What descriptor `fd` is open on, or None when it is closed: a cell that closed the
    kernel's channel may have opened something else that got its number."""
    try:
        stat = _os_fstat(fd)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


def _exit_status(code):
    # type: (Any) -> int
    """The status sys.exit(code) gives a script: 0 for None, the number, else 1 (printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    if sys.stderr is None:
        # print() would write to stdout; Python prints it on the process's own stderr.
        raise ValueError("sys.stderr is None")
    print(code, file=sys.stderr)
    return 1


def _report(error):
    # type: (BaseException) -> None
    """Prints the traceback as Python does for a script, without the kernel's own frames."""
    import traceback as printer

    trace = error.__traceback__
    while trace is not None and trace.tb_frame.f_code.co_filename == _KERNEL_FILE:
        trace = trace.tb_next
    printer.print_exception(type(error), error.with_traceback(trace), trace)


def _flush():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            pass  # Closed or replaced by the cell: its output is its own then.


def _write(fd, data):
    # type: (int, bytes) -> bool
    try:
        while data:
            data = data[_os_write(fd, data) :]
        return True
    except OSError:
        return False  # The cell closed it.


def main():
    # The host's channel moves to a private descriptor (not inherited by what cells run); the
    # cells read /dev/null.
    control = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    hello = _loads(control.readline() or b"{}")
    if "nonce" not in hello:
        sys.exit("codecall kernel: no hello from the host")
    kernel = Kernel(control, hello["nonce"].encode())
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _tag_threads()
    _tag_tool_calls()
    # Imported once for the whole session: cells find it in sys.modules.
    __import__(hello["module"])
    threading.Thread(target=kernel.read_requests, name="codecall-kernel-reader", daemon=True).start()
    # Serving from here on: the host starts its first cell's time limit at this marker, so the
    # kernel's start (slow on a remote backend) is not charged to the cell that happens to need it.
    _flush()
    _write(1, kernel.nonce + _dumps({"ready": True}).encode() + b"\n")
    kernel.serve()


if __name__ == "__main__":
    main()
