"""codecall daytona bridge, in one python3 process: what bridge.sh does, with the same lines.

bridge.sh runs it as `python3 -I -S -c <this> COMMAND...` for a spawned command when the sandbox
has python3, with fd 3 holding the first stdin lines and fd 0 the session's input pipe. The
protocol is bridge.sh's: input lines `>BASE64` (`>.` closes the command's stdin); output as base64
lines of 2000 characters tagged with their stream and numbered in it (`o7:...`), a read's last
one ending in `.`, each stream starting with `o0:.` and ending with `o<n>:!STATUS`. The sh bridge
starts three processes for every read of output and two for every input line; this one starts
none, so a tool call's frames cross without waiting for a process to start. It imports only
what starts fast (no subprocess, no base64 module: they pull in re, enum and locale).
"""

import binascii
import os
import sys
import threading

# One read of the command's output: 64 KiB of base64, in 2000-character lines (well under the
# daemon's 4 KiB line writes, so its two labellers never interleave inside one; see bridge.sh).
READ_BYTES = 49152
LINE_CHARS = 2000


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def spawn(argv):
    """Starts the command on three new pipes; returns its pid and our ends (its stdin, stdout, stderr)."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            import signal

            # Python ignores these two; the command must not inherit that (`yes | head` would spin).
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            os.dup2(stdin_read, 0)
            os.dup2(stdout_write, 1)
            os.dup2(stderr_write, 2)
            os.closerange(3, 4)
            os.execvp(argv[0], argv)
        except BaseException as error:
            write_all(2, b"codecall: cannot run %s: %s\n" % (argv[0].encode(), str(error).encode()))
        finally:
            os._exit(127)
    for fd in (stdin_read, stdout_write, stderr_write):
        os.close(fd)
    return pid, stdin_write, stdout_read, stderr_read


def encode(source, target, tag, next_numbers):
    """Sends each read of `source` at once as numbered lines; leaves the next number for the end mark."""
    number = 1
    while True:
        data = os.read(source, READ_BYTES)
        if not data:
            break
        text = binascii.b2a_base64(data, newline=False)
        lines = [b"%s%d:%s\n" % (tag, number + index, text[offset : offset + LINE_CHARS]) for index, offset in enumerate(range(0, len(text), LINE_CHARS))]
        lines[-1] = lines[-1][:-1] + b".\n"
        write_all(target, b"".join(lines))
        number += len(lines)
    next_numbers[tag] = number


def input_lines():
    """The input lines: first those embedded in the command (fd 3), then the session's (fd 0)."""
    for source in (3, 0):
        with os.fdopen(source, "rb") as lines:
            for line in lines:
                yield line.rstrip(b"\n")


def feed(target):
    """Decodes the input lines into the command's stdin (fd `target`) until `>.` closes it.

    Input the command no longer takes is read on and dropped, so the daemon's writes never block.
    """
    writing = True
    for line in input_lines():
        if line == b">.":
            break
        if not (writing and line.startswith(b">")):
            continue
        try:
            write_all(target, binascii.a2b_base64(line[1:]))
        except (OSError, binascii.Error) as error:
            if not isinstance(error, BrokenPipeError):
                write_all(2, b"codecall: stdin not delivered: %s\n" % str(error).encode())
            os.close(target)
            writing = False
    if writing:
        os.close(target)


def main():
    write_all(1, b"o0:.\n")
    write_all(2, b"e0:.\n")
    pid, stdin, stdout, stderr = spawn(sys.argv[1:])
    next_numbers = {}
    encoders = [
        threading.Thread(target=encode, args=(stdout, 1, b"o", next_numbers)),
        threading.Thread(target=encode, args=(stderr, 2, b"e", next_numbers)),
    ]
    for encoder in encoders:
        encoder.start()
    # A daemon thread: input nobody will read any more must not keep the session busy.
    threading.Thread(target=feed, args=(stdin,), daemon=True).start()
    _, wait_status = os.waitpid(pid, 0)
    status = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else 128 + os.WTERMSIG(wait_status)
    for encoder in encoders:
        encoder.join()
    # A stream whose encoder failed gets no end mark: the host then goes by the exit code.
    for tag, fd in ((b"o", 1), (b"e", 2)):
        if tag in next_numbers:
            write_all(fd, b"%s%d:!%d\n" % (tag, next_numbers[tag], status))
    os._exit(status)


main()
