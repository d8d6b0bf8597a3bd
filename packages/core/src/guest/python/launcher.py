# codecall launcher: runs a script as its only child and makes sure nothing the script started
# outlives it. Invoked as `python3 [FLAGS] -I -S -c "<this>" [--name NAME] [ARCHIVE] SCRIPT` (-I -S:
# no site packages to import, which is most of an interpreter's start); the script runs under the
# same interpreter (sys.executable), with FLAGS and its full environment.
#
# - NAME, when given, is what tracebacks call the script: it then runs through _codecall_main.py
#   (beside SCRIPT, from the archive), which compiles it under that name.
# - ARCHIVE, when given, holds the run's files (the script and the guest modules) as an
#   uncompressed zip: they are written beside it first. The host then installs a run with one
#   write, and the script imports plain files (Python compiles a module it imports from a zip twice).
# - On Linux it becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so every process the
#   script orphans (setsid, double fork, a cleared environment: nothing else can find those) is
#   re-parented to it instead of to init.
# - When the script's process exits, it kills every descendant still running (found under its own
#   pid in /proc), reaps them, and exits with the script's status (a death by signal is re-raised).
#   The run therefore ends when the script does, even if a helper holds its stdout open.
# - SIGTERM, SIGHUP and SIGINT are passed on to the whole tree, so a kill reaches escaped helpers.
#
# Without prctl or /proc (not Linux) it degrades to a plain parent: the backend's process-group
# kill is then all there is. It never forks after starting the script, so it can end the tree of
# a fork bomb that has used up the environment's process limit.
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


def has_children():
    """Reaps the children that ended; True while any is still running."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def end_leftovers():
    # Each round kills what it sees; the orphans of the killed come back to us (subreaper) and are
    # seen in the next round, so even a fork bomb runs out.
    while has_children():
        pids = descendants()
        if not pids:
            return  # Invisible without /proc: the backend's group kill has to do.
        signal_all(pids, signal.SIGKILL)
        time.sleep(0.01)


def exit_like(status):
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset: they act by default anyway.
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


NO_INTERPRETER_PATH = (
    "codecall: the Python interpreter does not know its own path (sys.executable is empty, and /proc/self/exe"
    " cannot be read), so the script cannot be started; give the interpreter as an absolute path, or a PATH"
    " that holds it\n"
)


def own_interpreter():
    """The running interpreter's path, to start the script with. sys.executable is empty when the
    interpreter was started by a bare name with no PATH to find it on (a backend's env without
    PATH: the shell still finds python3 on its built-in path); the kernel then knows it."""
    if sys.executable:
        return sys.executable
    try:
        return os.readlink("/proc/self/exe")
    except OSError:
        return ""


def main():
    arguments = sys.argv[1:]
    name = None
    if arguments[:1] == ["--name"]:
        name, arguments = arguments[1], arguments[2:]
    *archive, script = arguments
    program = [script] if name is None else [os.path.join(os.path.dirname(script), "_codecall_main.py"), script, name]
    for path in archive:
        failure = unpack_failure(path)
        if failure is not None:
            os.write(2, failure.encode())
            os._exit(1)
    become_subreaper()
    # orig_argv (3.10+) is [python, *FLAGS, "-I", "-S", "-c", source, *argv[1:]].
    flags = list(getattr(sys, "orig_argv", []))[1 : -len(sys.argv) - 3]
    for signum in FORWARDED:
        signal.signal(signum, lambda signum, _frame: signal_all(descendants(), signum))
    executable = own_interpreter()
    child = os.fork()
    if child == 0:
        for signum in FORWARDED + (signal.SIGPIPE,):
            signal.signal(signum, signal.SIG_DFL)
        # Tells the guest's start-up hook (sitecustomize.py) which process is the script itself.
        os.environ["CODECALL_SCRIPT_PID"] = str(os.getpid())
        if not executable:
            os.write(2, NO_INTERPRETER_PATH.encode())
            os._exit(127)
        try:
            os.execv(executable, [executable] + flags + program)
        except (OSError, ValueError) as error:
            os.write(2, ("codecall: cannot run %s: %s\n" % (executable, error)).encode())
        os._exit(127)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            break
    end_leftovers()
    exit_like(status)


# The environment agent imports this file as a module: its shepherds end trees the same way, and
# unpack a run's files for a script they start without the launcher.
if __name__ == "__main__":
    main()
