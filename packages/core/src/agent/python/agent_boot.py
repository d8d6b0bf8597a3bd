# codecall environment agent: the bootstrap. The agent's command line (`python3 -I -S -B -c
# <loader>`) reads this file from stdin and runs it; it reads the agent's modules from the same
# stdin — a line with their count, then for each a line "<name> <bytes>" and its source — loads them
# in order and runs the last one's main(), which reads its frames from there too. It reads with
# os.read, so nothing past the sources is consumed. Written to run (and to fail with a message) on
# any Python, so an old one is refused by name before the modules are compiled.
import os
import sys
import types


def line():
    data = b""
    while not data.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            raise SystemExit("codecall agent: its source was cut short")
        data += byte
    return data[:-1].decode("ascii")


def take(size):
    chunks = []
    while size > 0:
        chunk = os.read(0, min(size, 65536))
        if not chunk:
            raise SystemExit("codecall agent: its source was cut short")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def load():
    module = None
    for _ in range(int(line())):
        name, size = line().split()
        module = types.ModuleType(name)
        sys.modules[name] = module
        exec(compile(take(int(size)), name + ".py", "exec"), module.__dict__)
    return module


if sys.version_info < (3, 8):
    raise SystemExit("codecall agent: needs Python 3.8 or newer, not " + sys.version.split()[0])
getattr(load(), "main")()
