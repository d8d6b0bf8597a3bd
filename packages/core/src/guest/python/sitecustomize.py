"""codecall's start-up hook in the script's process: Python imports `sitecustomize` while it starts,
and the run dir comes first on PYTHONPATH. It makes sure buffered output is not lost.

When nobody streams the run's output live, the host leaves stdout block-buffered (Python's own
choice for a pipe: a flood of prints costs one write per 8 KiB instead of one or two per line) and
sets CODECALL_OUTPUT=buffered. When someone does, it sets CODECALL_OUTPUT=lines and
PYTHONUNBUFFERED, and this hook makes stdout line-buffered, as on a terminal: each line as soon as
it ends, in one write (unbuffered, a print is two; without the hook, as under `python -S`, stdout
stays unbuffered). What a buffer holds must still reach the host when the script does not end
normally:

- SIGTERM and SIGHUP (a timeout or an interrupt: the host's kill, which the launcher passes on)
  flush stdout and stderr, then end the process by the same signal, as it would have ended.
  Python runs the handler in the main thread between two bytecodes, so a thread blocked in a
  call that signals interrupt (sleep, I/O, waits, tool calls) flushes at once.
- A fork flushes first, so a child does not inherit what the parent printed and print it again.

Then it runs the `sitecustomize` it shadows, if the interpreter has one. Imports are kept to
builtins: every script pays for them at start-up.
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


def _keep_buffered_output():
    for signum in (_signal.SIGTERM, _signal.SIGHUP):
        # A signal the script's parent made it ignore stays ignored.
        if _signal.getsignal(signum) == _signal.SIG_DFL:
            _signal.signal(signum, _flush_and_end)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(before=_flush_output)


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
if _mode == "lines" and sys.stdout is not None:
    try:
        # Under PYTHONUNBUFFERED the text layer writes through; now it gathers each line first.
        sys.stdout.reconfigure(line_buffering=True, write_through=False)  # pyright: ignore[reportAttributeAccessIssue]
    except (AttributeError, ValueError):
        pass  # Not a TextIOWrapper (replaced before us), or detached: left as it is.
if _mode in ("buffered", "lines"):
    _keep_buffered_output()
_run_shadowed_sitecustomize()
