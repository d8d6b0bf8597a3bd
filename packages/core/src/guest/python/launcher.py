# codecall launcher: runs a script and makes sure nothing the script started outlives it.
# Invoked as `python3 [FLAGS] -c "<this>" [--direct] [--name NAME] [ARCHIVE] SCRIPT`. It is the
# script's own interpreter, started once: Python's start-up (site packages, most of an interpreter's
# start) is done once for both, and the script runs in a fork of it, with FLAGS and its environment.
#
# - The host starts it with PYTHONSAFEPATH=1 (see main_directory_wanted): -c would put the working
#   directory first on the module path before anything of the launcher's runs.
# - NAME, when given, is what tracebacks, warnings and syntax errors call the script (see run_script).
# - ARCHIVE, when given, holds the run's files (the script and the guest modules) as an
#   uncompressed zip: they are written beside it first. The host then installs a run with one
#   write, and the script imports plain files (Python compiles a module it imports from a zip twice).
#   The archive's start-up hook (sitecustomize.py) was not there yet when Python started: the
#   script runs it as its first step (see run_start_up_hook).
# - On Linux it becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every process the
#   script orphans (setsid, double fork, a cleared environment: nothing else can find those) is
#   re-parented to it instead of to init.
# - When the script's process exits, it kills every descendant still running (found under its own
#   pid in /proc), reaps them, and exits with the script's status (a death by signal is re-raised).
#   The run therefore ends when the script does, even if a helper holds its stdout open.
# - SIGTERM, SIGHUP and SIGINT are passed on to the whole tree, so a kill reaches escaped helpers.
# - --direct: the environment holds the command's tree itself (an environment agent's shepherd,
#   which also unpacked the run's files before Python started): the script runs in this process.
#
# Without prctl or /proc (not Linux) it degrades to a plain parent: the backend's process-group
# kill is then all there is. It never forks after starting the script, so it can end the tree of
# a fork bomb that has used up the environment's process limit.
import gc
import os
import sys
import time

# The C module under `signal`, which would import enum: a fifth of a bare interpreter's start.
import _signal as signal  # pyright: ignore[reportMissingImports]

PR_SET_CHILD_SUBREAPER = 36
FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def unpack(archive):
    """Writes each file of ARCHIVE into its directory (0600, never over an existing file). Reads
    only what python-guest's archive writer makes: stored entries with plain names."""
    directory = os.path.dirname(archive)
    with open(archive, "rb") as archive_file:
        data = archive_file.read()
    offset = 0
    while data[offset : offset + 4] == b"PK\x03\x04":
        method = int.from_bytes(data[offset + 8 : offset + 10], "little")
        size = int.from_bytes(data[offset + 18 : offset + 22], "little")
        name_end = offset + 30 + int.from_bytes(data[offset + 26 : offset + 28], "little")
        name = data[offset + 30 : name_end].decode("utf-8")
        start = name_end + int.from_bytes(data[offset + 28 : offset + 30], "little")
        if method != 0 or name in ("", ".", "..") or "/" in name or start + size > len(data):
            raise ValueError("an entry it cannot unpack: %r" % name)
        descriptor = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as target:
            target.write(data[start : start + size])
        offset = start + size


def unpack_failure(archive):
    """Unpacks ARCHIVE (see unpack); what to tell the user when it cannot, else None."""
    try:
        unpack(archive)
    except (OSError, ValueError) as error:
        return "codecall: cannot unpack the run's files from %s: %s\n" % (archive, error)
    return None


_prctl = []


def prctl(option, value):
    """Calls Linux's prctl(option, value, 0, 0, 0): True when the kernel took the setting, False
    where there is no prctl (not Linux, no ctypes)."""
    try:
        if not _prctl:
            # The C module, not the `ctypes` package: importing that would add ~10 ms to every
            # run's start. A function pointer type without a result type returns a C int.
            import _ctypes  # pyright: ignore[reportMissingImports]

            class CFunction(_ctypes.CFuncPtr):
                _flags_ = _ctypes.FUNCFLAG_CDECL

            # None: the running program and the libraries it loaded (libc), as `ctypes.CDLL(None)`.
            program = _ctypes.dlopen(None, os.RTLD_NOW)  # pyright: ignore[reportArgumentType]
            _prctl.append(CFunction(_ctypes.dlsym(program, "prctl")))
        return _prctl[0](option, value, 0, 0, 0) == 0
    except Exception:
        return False


def become_subreaper():
    # Where it fails (not Linux), orphans go to init, as without the launcher.
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def children_table():
    """{pid: [its children]} for every process /proc shows; empty where /proc cannot be read."""
    children = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as stat_file:
                stat = stat_file.read()
        except OSError:
            continue  # Ended while we looked.
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(root=None, children=None):
    """Pids of every process below `root` (default: this one), parents before their children."""
    if children is None:
        children = children_table()
    found, queue = [], [os.getpid() if root is None else root]
    while queue:
        for pid in children.get(queue.pop(), ()):
            found.append(pid)
            queue.append(pid)
    return found


def signal_all(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass  # Already gone.


def reap_children():
    """Reaps the children that have ended: their (pid, status) pairs, and whether any still runs."""
    ended = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended, False
        if pid == 0:
            return ended, True
        ended.append((pid, status))


def has_children():
    """Reaps the children that ended; True while any is still running."""
    return reap_children()[1]


def end_leftovers():
    # Each round kills what it sees; the orphans of the killed come back to us (subreaper) and are
    # seen in the next round, so even a fork bomb runs out.
    while has_children():
        pids = descendants()
        if not pids:
            return  # Invisible without /proc: the backend's group kill has to do.
        signal_all(pids, signal.SIGKILL)
        time.sleep(0.01)


def tree_of(child):
    """The script and everything below the launcher (the script alone where /proc cannot be read)."""
    pids = descendants()
    return pids if child in pids else [child] + pids


def wait_passing_signals_on(child, waited, mask):
    """Waits for CHILD to end, passing SIGTERM, SIGHUP and SIGINT on to the whole tree; its status.
    WAITED are blocked, and taken with sigwaitinfo, which no signal slips past between a check and a
    blocking wait. That needs them blocked in every thread: where Python's start-up files left
    threads running (their masks are their own), or there is no sigwaitinfo (macOS), see
    wait_woken_by_signals."""
    if threads_running() or not hasattr(signal, "sigwaitinfo"):
        return wait_woken_by_signals(child, mask, wakeup_pipe(waited))
    while True:
        signum = signal.sigwaitinfo(waited).si_signo
        if signum != signal.SIGCHLD:
            signal_all(tree_of(child), signum)
            continue
        # One SIGCHLD stands for one or more children that ended: orphans the launcher adopted too.
        for pid, status in reap_children()[0]:
            if pid == child:
                return status


def wakeup_pipe(waited):
    """Handlers for WAITED that write each signal's number to a pipe, whichever thread takes it: its
    read end (see wait_woken_by_signals). Installed while they are blocked in this thread."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    for signum in waited:
        signal.signal(signum, lambda signum, frame: None)
    return wake_read


def wait_woken_by_signals(child, mask, wake_read):
    """wait_passing_signals_on, with handlers: a signal may land on any thread, and there Python's
    own handler writes its number to the wakeup pipe (see wakeup_pipe), which the launcher reads (a
    default SIGTERM would end the launcher, a default SIGCHLD would be lost). The pipe keeps what
    comes between a check and the read. A thread of a start-up file's that waits for any child can
    take the script's status: then the launcher says so and exits 1 instead of waiting forever."""
    import select

    # What came while they were blocked in this thread is handled now, and so in the pipe.
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    while True:
        ended, running = reap_children()
        for pid, status in ended:
            if pid == child:
                return status
        if not running or not still_child(child):
            os.write(2, b"codecall: the script's exit status was taken by another thread of its interpreter (a start-up file's)\n")
            return 1 << 8
        if select.select([wake_read], [], [], 1.0)[0]:
            for signum in os.read(wake_read, 64):
                if signum in FORWARDED:
                    signal_all(tree_of(child), signum)


def still_child(pid):
    """False once PID is no child of this process's (reaped by another thread); True where /proc cannot tell."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1]) == os.getpid()
    except (OSError, ValueError, IndexError):
        return not os.path.isdir("/proc/self")


def exit_like(status):
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset: they act by default anyway.
        os.kill(os.getpid(), signum)
        # The launcher holds SIGTERM, SIGHUP and SIGINT blocked (see main): let it in.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


# Python's start-up files, which the launcher runs for the script when the archive brought them.
START_UP_HOOK = "sitecustomize"


def start_up_hook(directory):
    """The run's start-up hook (sitecustomize.py in DIRECTORY), compiled; None where there is none.
    Python imports start-up hooks as it starts, before the launcher unpacked the archive: the
    machine's own sitecustomize (if any) ran then, once, and the script inherits what it did. This
    one runs in the script (see run_start_up_hook). Compiled before the fork: in the fork, whose
    first writes copy the pages they touch, the same compile takes three times as long."""
    hook = os.path.join(directory, START_UP_HOOK + ".py")
    try:
        with open(hook, "rb") as hook_file:
            source = hook_file.read()
        return compile(source, hook, "exec", dont_inherit=True)
    except FileNotFoundError:
        return None
    except Exception as error:
        report_hook_error(error)
        return None


def run_start_up_hook(hook):
    """Runs HOOK (see start_up_hook) as the script's own start-up hook. An error is reported as
    Python reports one in its start-up hook, and the script still runs."""
    if hook is None:
        return
    try:
        # Under a name of its own: as "sitecustomize" it would run the machine's hook again.
        exec(hook, {"__name__": "_codecall_start_up", "__file__": hook.co_filename})
    except Exception as error:
        report_hook_error(error)


def report_hook_error(error):
    sys.stderr.write("Error in %s; set PYTHONVERBOSE for traceback:\n%s: %s\n" % (START_UP_HOOK, type(error).__name__, error))


def run_script(script, name):
    """Runs SCRIPT in this process as the main program, compiled under NAME.

    Names are for people, paths for programs: the code is compiled under NAME (its frames, and so
    every traceback, warning and SyntaxError, show it), while __file__ and sys.argv[0] stay the
    real copy, which exists wherever the script runs (multiprocessing and __file__-relative reads
    need a path that is there). Source lines in tracebacks come from the copy too: linecache is
    given them under NAME, so a file of that name in the working directory (or none) cannot show
    other lines."""
    # This module's globals are about to become the script's (the launcher runs as __main__, and
    # the script must too, for pickle and friends): what is needed after that is held in locals.
    import sys

    launcher_file = run_script.__code__.co_filename
    # The loader class of a module run from a file, without importing importlib.machinery (~0.7 ms).
    SourceFileLoader = sys.modules["_frozen_importlib_external"].SourceFileLoader

    def report_uncaught(kind, error, traceback):
        # The launcher's own frames lead every traceback; the script's start after them.
        while traceback is not None and traceback.tb_frame.f_code.co_filename == launcher_file:
            traceback = traceback.tb_next
        # The traceback module, not sys.__excepthook__: before 3.13 the latter reads source lines
        # from a file of that name only, the former from linecache, which holds the script's.
        import traceback as printer

        printer.print_exception(kind, error.with_traceback(traceback), traceback)

    with open(script, "rb") as source_file:
        source = source_file.read()

    def give_lines(linecache):
        import io
        import tokenize  # Imported by linecache already.

        text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0], "replace")
        # An entry without a modification time: linecache keeps it and never looks for a file.
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)

    class LinesOnImport:
        """Gives linecache the script's lines as it is first imported (by a traceback, a warning,
        the script): importing it here would import tokenize and re, ~6 ms of every run's start.
        A meta path finder, first on sys.meta_path until then: it finds linecache as the others
        would, and wraps its loader only to give the lines once the module has run."""

        def find_spec(self, fullname, path=None, target=None):
            if fullname != "linecache":
                return None
            for finder in [finder for finder in sys.meta_path if finder is not self]:
                spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
                if spec is not None and spec.loader is not None:
                    sys.meta_path.remove(self)
                    # Duck-typed: subclassing importlib.abc.Loader would cost an import.
                    spec.loader = LinesAfterLoading(spec.loader)  # pyright: ignore[reportAttributeAccessIssue]
                    return spec
            return None

    class LinesAfterLoading:
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            self.loader.exec_module(module)
            # The module keeps the loader that really loaded it.
            module.__loader__ = module.__spec__.loader = self.loader
            give_lines(module)

    if "linecache" in sys.modules:
        give_lines(sys.modules["linecache"])  # A start-up hook imported it already.
    else:
        sys.meta_path.insert(0, LinesOnImport())

    main_globals = sys.modules["__main__"].__dict__
    builtins = main_globals["__builtins__"]
    main_globals.clear()
    main_globals.update(
        {
            "__name__": "__main__",
            "__doc__": None,
            "__package__": None,
            "__spec__": None,
            "__file__": script,
            "__cached__": None,
            "__loader__": SourceFileLoader("__main__", script),
            "__builtins__": builtins,
        }
    )
    sys.argv = [script]
    sys.excepthook = report_uncaught
    # A SyntaxError raised here is reported as Python reports one in a script: no traceback, the
    # file (NAME), the line and the caret.
    code = compile(source, name, "exec", dont_inherit=True)
    try:
        exec(code, main_globals)
    except KeyboardInterrupt as error:
        # Reported here: an import in the hook Python calls (traceback's) would clear the flag by
        # which Python ends itself by SIGINT after an uncaught KeyboardInterrupt, as a script does.
        report_uncaught(type(error), error, error.__traceback__)
        sys.excepthook = lambda *_: None
        raise


# Set by the host's command (see launcher.ts) to what PYTHONSAFEPATH was, beside PYTHONSAFEPATH=1.
SAFE_PATH_VARIABLE = "CODECALL_SAFE_PATH"


def user_asked_for_safe_path(own_value):
    """Whether the script's Python would run without its directory on the module path: -P or -I
    in FLAGS, or the environment's own PYTHONSAFEPATH (OWN_VALUE), which -E ignores."""
    if sys.flags.isolated or (own_value and not sys.flags.ignore_environment):
        return True
    arguments = iter(getattr(sys, "orig_argv", [])[1:])
    for argument in arguments:
        if argument == "-c" or not argument.startswith("-"):
            break
        if argument in ("-W", "-X", "--check-hash-based-pycs"):
            next(arguments, None)  # Their value, which holds no flag.
        elif argument[1:2] not in ("W", "X", "-") and "P" in argument:
            return True
    return False


# What main_directory_wanted found in SAFE_PATH_VARIABLE (None: not set), for a fresh interpreter.
_safe_path_value = []


def main_directory_wanted():
    """Puts the environment's own PYTHONSAFEPATH back, and says whether the script's directory goes
    first on the module path, as for a script run from its file. -c puts the working directory
    there instead, before Python 3.13 imports linecache from it: the host starts the launcher with
    PYTHONSAFEPATH=1 (3.11+; older ones ignore it), so nothing of the working directory's is
    imported, and the script's directory is put first unless the script's own settings say not."""
    own_value = os.environ.pop(SAFE_PATH_VARIABLE, None)
    _safe_path_value.append(own_value)
    if own_value is not None:
        # The script and what it starts see the environment as it was.
        if own_value:
            os.environ["PYTHONSAFEPATH"] = own_value
        else:
            os.environ.pop("PYTHONSAFEPATH", None)
    if sys.path[:1] == [""]:  # Before 3.11, or -E.
        del sys.path[0]
        return True
    return own_value is not None and not user_asked_for_safe_path(own_value)


def threads_running():
    """Whether a thread besides this one runs: one a start-up file (the machine's sitecustomize, a
    .pth file) started as Python started, in Python or in a C library (/proc counts both)."""
    try:
        return len(os.listdir("/proc/self/task")) > 1
    except OSError:
        import _thread

        count = getattr(_thread, "_count", None)
        return count is not None and count() > 0


def launcher_command():
    """The launcher's command line (sys.orig_argv, Python 3.10+), where a fresh interpreter can be
    started with it (posix_spawn); else None."""
    command = getattr(sys, "orig_argv", None)
    if not command or "-c" not in command or not hasattr(os, "posix_spawn"):
        return None
    return command


def start_fresh_interpreter(command, script, name, mask):
    """Starts the script in an interpreter of its own (COMMAND, the launcher's, with --direct), not
    in a fork: a fork would run it without the threads that Python's start-up files started (they
    live in the launcher), and Python 3.12+ warns that forking a threaded process may deadlock. The
    run's files are unpacked by now: that interpreter imports the start-up hook itself, which knows
    the script by its parent (CODECALL_SCRIPT_PID); its pid."""
    at = command.index("-c")
    argv = command[: at + 2] + ["--direct"] + ([] if name is None else ["--name", name]) + [script]
    env = dict(os.environ)
    env["CODECALL_SCRIPT_PID"] = "child-of-%d" % os.getpid()
    if _safe_path_value and _safe_path_value[0] is not None:
        env[SAFE_PATH_VARIABLE], env["PYTHONSAFEPATH"] = _safe_path_value[0], "1"
    # The interpreter that runs, not what PATH names now (a start-up file may have changed it);
    # without PATH, Python may not know its own path: then as the shell found it.
    if sys.executable:
        return os.posix_spawn(sys.executable, argv, env, setsigmask=mask)
    return os.posix_spawnp(command[0], argv, env, setsigmask=mask)


def main():
    arguments = sys.argv[1:]
    # Before anything is imported.
    path_has_main_directory = main_directory_wanted()
    direct = arguments[:1] == ["--direct"]
    if direct:
        arguments = arguments[1:]
    name = None
    if arguments[:1] == ["--name"]:
        name, arguments = arguments[1], arguments[2:]
    *archive, script = arguments
    if not direct:
        # Before the run's files are there: a tools module named _ctypes would be found first.
        become_subreaper()
    for path in archive:
        failure = unpack_failure(path)
        if failure is not None:
            os.write(2, failure.encode())
            os._exit(1)
    if path_has_main_directory:
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    if direct:
        if os.environ.get("CODECALL_SCRIPT_PID") == "child-of-%d" % os.getppid():
            # Started by the launcher (start_fresh_interpreter), and Python imported no start-up
            # hook of the run's (-E and -I ignore PYTHONPATH): run it, as in a fork.
            os.environ["CODECALL_SCRIPT_PID"] = str(os.getpid())
            run_start_up_hook(start_up_hook(os.path.dirname(script)))
        run_script(script, script if name is None else name)
        return
    # Held from here to the fork, so that none is lost before there is a script to pass it on to:
    # the fork gets the mask back (and what is pending for it then), the launcher takes them with
    # sigwaitinfo, which no signal can slip past between a check and a blocking wait.
    waited = FORWARDED + (signal.SIGCHLD,)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, waited)
    command = launcher_command() if threads_running() else None
    if command is not None:
        # The handlers first: a thread with the signals unblocked may take one at any time.
        wake_read = wakeup_pipe(waited)
        child = start_fresh_interpreter(command, script, name, mask)
        status = wait_woken_by_signals(child, mask, wake_read)
        end_leftovers()
        exit_like(status)
    hook = start_up_hook(os.path.dirname(script))
    # What Python holds now stays shared with the fork: a collection there would write to (and
    # so copy) every page of it. Frozen, and thawed in the fork at once (its collections must see
    # everything, gc.get_referrers too), it is all in the oldest generation, which only a full
    # collection walks.
    if hasattr(gc, "freeze"):  # 3.7+
        gc.freeze()
    child = os.fork()
    if child == 0:
        if hasattr(gc, "unfreeze"):
            gc.unfreeze()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        # Tells the start-up hook (sitecustomize.py) that this process is the script itself.
        os.environ["CODECALL_SCRIPT_PID"] = str(os.getpid())
        run_start_up_hook(hook)
        run_script(script, script if name is None else name)
        return
    status = wait_passing_signals_on(child, waited, mask)
    end_leftovers()
    exit_like(status)


# The environment agent imports this file as a module: its shepherds end trees the same way, and
# unpack a run's files for a script they start without the launcher.
if __name__ == "__main__":
    main()
