# codecall environment agent: files. Writes and reads are streams, so a file of any size moves
# within the protocol's window; the reply comes once the stream is complete (or refused).
import errno
import os
import shutil
import stat

from agent_commands import RequestError
from agent_streams import Endpoint, Sink, Source

OPEN_FLAGS = os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
NAME_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def describe(error, path):
    return "%s: %s" % (error.strerror or error, path)


def refuse_blocking_kinds(fd, path, writing):
    """A FIFO or socket at the path would hold the agent's I/O for ever (a script can `mkfifo` where
    a tool will read or write), so the opened descriptor's type decides, like the local backend:
    reads refuse directories, FIFOs and sockets (devices such as /dev/zero stay readable within
    `maxBytes`), writes anything but a regular file."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError as error:
        os.close(fd)
        raise RequestError("FAILED", describe(error, path))
    blocking = stat.S_ISDIR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    if not (blocking or (writing and not stat.S_ISREG(mode))):
        return
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise RequestError("INVALID_PATH", "Is a directory, not a file: %s" % path)
    raise RequestError("INVALID_PATH", "Not a regular file: %s" % path)


def write_file(agent, request_id, request):
    """Creates missing parents, truncates or creates the file (mode first, then the bytes)."""
    path, stream, mode = request["path"], request["stream"], request.get("mode")
    try:
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | OPEN_FLAGS, 0o666)
    except IsADirectoryError:
        raise RequestError("INVALID_PATH", "Is a directory, not a file: %s" % path)
    except OSError as error:
        # A FIFO nobody reads (or a socket) refuses a non-blocking open for writing.
        if error.errno == errno.ENXIO:
            raise RequestError("INVALID_PATH", "Not a regular file: %s" % path)
        raise RequestError("FAILED", describe(error, path))
    refuse_blocking_kinds(fd, path, writing=True)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
    except OSError as error:
        os.close(fd)
        raise RequestError("FAILED", describe(error, path))

    def finished(error):
        if error is None:
            agent.reply(request_id, {})
        else:
            agent.reply_error(request_id, "FAILED", describe(error, path))

    Sink(agent, Endpoint(agent, fd), stream, finished)


def read_file(agent, request_id, request):
    """Streams the file; with `maxBytes`, stops after one byte more and refuses it (FILE_TOO_LARGE)."""
    path, stream, max_bytes = request["path"], request["stream"], request.get("maxBytes")
    try:
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    except FileNotFoundError:
        raise RequestError("FILE_NOT_FOUND", "No such file: %s" % path)
    except OSError as error:
        raise RequestError("FAILED", describe(error, path))
    refuse_blocking_kinds(fd, path, writing=False)

    def finished(total):
        if max_bytes is not None and total > max_bytes:
            agent.reply_error(request_id, "FILE_TOO_LARGE", "%s holds more than %d bytes" % (path, max_bytes))
        else:
            agent.reply(request_id, {"size": total})

    Source(agent, Endpoint(agent, fd), stream, None if max_bytes is None else max_bytes + 1, finished)


def remove(_agent, _request_id, request):
    path = request["path"]
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise RequestError("FAILED", describe(error, getattr(error, "filename", None) or path))
    return {}


def make_temp_dir(agent, _request_id, request):
    """A new directory only its owner may enter (0700), like `mktemp -d`."""
    root = request.get("root") or (agent.base_env.get(b"TMPDIR") or b"/tmp").decode("utf-8", "surrogateescape")
    for _ in range(100):
        name = "codecall-" + "".join(NAME_LETTERS[byte % len(NAME_LETTERS)] for byte in os.urandom(10))
        path = os.path.join(root, name)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        except OSError as error:
            raise RequestError("FAILED", describe(error, root))
        os.chmod(path, 0o700)
        return {"path": path}
    raise RequestError("FAILED", "could not make a unique directory in %s" % root)
