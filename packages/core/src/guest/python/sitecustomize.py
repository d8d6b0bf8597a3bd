"""codecall's start-up hook in the run's Python processes: Python imports `sitecustomize` while it
starts, and the run dir comes first on PYTHONPATH. It sets up stdout's buffering and makes sure
buffered output is not lost.

When nobody streams the run's output live, the host sets CODECALL_OUTPUT=buffered and the script's
stdout stays block-buffered (Python's own choice for a pipe), in writes of 256 KiB rather than
Python's 8 KiB: a flood of prints costs one write per 256 KiB instead of one or two per line, and
the reader is woken a fraction as often. When someone does, it sets CODECALL_OUTPUT=lines and
PYTHONUNBUFFERED, and the script's stdout becomes line-buffered, as on a terminal: each line as
soon as it ends, in one write (unbuffered, a print is two; without this hook, as under
`python -S`, it stays unbuffered).

In the script's own process, SIGTERM and
SIGHUP (a timeout or an interrupt: the host's kill, which the launcher passes on) flush stdout and
stderr, then end the process by the same signal, as it would have ended. Python runs the handler
in the main thread between two bytecodes, so a thread blocked in a call that signals interrupt
(sleep, I/O, waits, tool calls) flushes at once; one stuck in C code (or a signal that slips in
just before a blocking call starts) waits for the host's SIGKILL after the grace period.

The script's own process is named in CODECALL_SCRIPT_PID: by its pid, which the launcher sets
in the fork that becomes the script (it then runs this file as the script's first step: when its
interpreter started, the run's files were not unpacked yet), or as "session-leader" where the
launcher runs the script in its own process (an environment agent's shepherd starts it as the
first process of a session of its own, and nothing else of the run leads that session before the
script has started; the shepherd unpacked the files, and Python imports this hook as it starts),
or as "child-of-PID" where the launcher (PID) starts the script in an interpreter of its own
because Python's start-up files left threads running in it (see launcher.py). The script then
puts its own pid there, so its Python subprocesses (in a session of their own, too,
or not) know they are not it.

Every other process of the run — a forked child (multiprocessing's fork workers), a Python
subprocess — keeps the default SIGTERM (multiprocessing's Pool.terminate() waits for its workers
without a deadline: a handler that runs late would hang it) and gets a line-buffered stdout
instead, so what it prints is out by the end of each line when it is killed. A fork flushes first,
so a child does not inherit what the parent printed and print it again.

Imported by Python as it starts, it then runs the `sitecustomize` it shadows, if the interpreter
has one (run by the launcher, it does not: that one ran when the interpreter started). Imports are
kept to builtins: every script pays for them at start-up.
"""
import os
import sys

import _signal  # pyright: ignore[reportMissingImports] -- the C module: `signal` would import enum


def _flush_output():
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            pass  # A closed stream, or the main thread was interrupted inside a write to it.


def _flush_and_end(signum, _frame):
    _flush_output()
    _signal.signal(signum, _signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _line_buffered():
    if sys.stdout is None:
        return
    try:
        # Under PYTHONUNBUFFERED the text layer writes through; now it gathers each line first.
        sys.stdout.reconfigure(line_buffering=True, write_through=False)  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, ValueError):
        pass  # Not a TextIOWrapper (replaced before us), or detached: left as it is.


# At least what the stream under stdout holds (a pipe 64 KiB, a local socket pair ~208 KiB): one
# write fills it, and wakes the reader once.
_WRITE_BYTES = 262144


def _larger_writes():
    try:
        # By lines if this interpreter started as something else: a launcher whose run's files
        # were there already ran this hook as a process that is not the script.
        sys.stdout.reconfigure(line_buffering=False)  # pyright: ignore[reportAttributeAccessIssue]
        # The text layer hands its buffered text on in pieces of this size (8 KiB by default); the
        # byte layer under it writes a piece larger than its own buffer straight through.
        sys.stdout._CHUNK_SIZE = _WRITE_BYTES  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, ValueError, TypeError):
        pass  # Not a TextIOWrapper (replaced before us), or detached: left as it is.


_KILLS = (_signal.SIGTERM, _signal.SIGHUP)
# The forking thread's signal mask from before the fork (see _before_fork).
_mask_before_fork = None


def _before_fork():
    global _mask_before_fork
    _flush_output()
    # A kill that comes while the child is still being set up must not reach the flushing handler
    # it inherits: Python would run it only once the child is past _as_child, which has reset it,
    # and so drop the signal. Blocked, it waits in the kernel for the default action.
    _mask_before_fork = _signal.pthread_sigmask(_signal.SIG_BLOCK, _KILLS)


def _after_fork_in_parent():
    _signal.pthread_sigmask(_signal.SIG_SETMASK, _mask_before_fork)


def _as_child():
    """A forked child: the default SIGTERM and SIGHUP again, and stdout by lines."""
    for signum in _KILLS:
        if _signal.getsignal(signum) is _flush_and_end:
            _signal.signal(signum, _signal.SIG_DFL)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, _mask_before_fork)
    _line_buffered()


def _is_script():
    named = os.environ.get("CODECALL_SCRIPT_PID")
    if (named == "session-leader" and os.getsid(0) == os.getpid()) or named == "child-of-%d" % os.getppid():
        named = os.environ["CODECALL_SCRIPT_PID"] = str(os.getpid())
    return named == str(os.getpid())


def _set_up(mode):
    if not _is_script():
        _line_buffered()  # A Python subprocess of the script.
        return
    if mode == "lines":
        _line_buffered()
    elif sys.stdout is not None:
        _larger_writes()
    for signum in _KILLS:
        # A signal the script's parent made it ignore stays ignored.
        if _signal.getsignal(signum) == _signal.SIG_DFL:
            _signal.signal(signum, _flush_and_end)
    if hasattr(os, "register_at_fork") and hasattr(_signal, "pthread_sigmask"):
        os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_as_child)


def _run_shadowed_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    saved_path = sys.path[:]
    ours = sys.modules.pop(__name__)
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    try:
        __import__(__name__)
    except ImportError as error:
        if error.name != __name__:
            raise
        sys.modules[__name__] = ours  # There is none.
    finally:
        sys.path[:] = saved_path


_mode = os.environ.get("CODECALL_OUTPUT")
if _mode in ("buffered", "lines"):
    _set_up(_mode)
if __name__ == "sitecustomize":
    _run_shadowed_sitecustomize()
