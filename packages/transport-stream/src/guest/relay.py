# codecall stream relay: runs inside the environment as one long-lived process whose stdin and
# stdout are the host's only link to it (a docker exec, an ssh channel). It listens on a private
# Unix socket for the script's processes and moves bytes between each of their connections and the
# host, multiplexed on stdio:
#
#   host -> relay   "<length>\n" and this file's source, which a `python -c` bootstrap reads and runs
#   relay -> host   "codecall-relay/1 ready\n" once the socket listens, then frames
#   both ways       "<connection> <length>\n" followed by exactly <length> bytes;
#                   length 0 means the connection closed (or, from the host: close it)
#   both ways       "<connection> ack <count>\n": the receiver has consumed <count> more bytes of
#                   that connection's data (the host: of its requests; the relay: of its answers,
#                   written to the guest's socket)
#
# Flow control is per connection, so one guest that stops reading stalls nobody else: the relay
# forwards at most REQUEST_WINDOW bytes of a connection's requests that the host has not consumed,
# and the host sends a connection's answers only while few of them are unacknowledged. The relay
# itself never blocks: one thread, one selector over the listening socket, every connection, stdin
# and stdout, all non-blocking, so neither a guest that does not read nor one that forks hundreds of
# workers (no thread per connection to start) can stop it, and a failing connection only ends that
# connection. It knows nothing of JSON-RPC: the host decodes frames, checks tokens and enforces
# limits. It exits when its stdin ends.
import errno
import io
import os
import selectors
import socket
import sys

GREETING = b"codecall-relay/1 ready\n"
CHUNK = 65536
MAX_HEADER = 64
# Bytes of one connection's requests sent to the host and not yet consumed by it.
REQUEST_WINDOW = 256 * 1024
# While this much waits to go to the host, no guest is read (the host is behind on all of them).
MAX_TO_HOST = 1024 * 1024
# accept() failures that mean "out of descriptors or memory": wait for a connection to close.
EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class Connection:
    def __init__(self, connection_id, sock):
        self.id = connection_id
        self.sock = sock
        self.to_guest = bytearray()
        self.unacked = 0  # request bytes sent to the host that it has not consumed yet
        self.closing = False  # the host closed it: flush what is left, then close
        self.events = 0


class Relay:
    def __init__(self, path, pending_input):
        self.path = path
        self.selector = selectors.DefaultSelector()
        self.connections = {}
        self.next_id = 1
        self.to_host = bytearray(GREETING)
        self.from_host = bytearray(pending_input)
        self.accepting = True
        self.stdout_watched = False
        self.done = False
        self.problem = None
        old_umask = os.umask(0o077)
        try:
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(path)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        self.server.listen(socket.SOMAXCONN)
        self.server.setblocking(False)
        os.set_blocking(0, False)
        os.set_blocking(1, False)
        self.selector.register(self.server, selectors.EVENT_READ, self.accept)
        self.selector.register(0, selectors.EVENT_READ, self.read_host)

    # -- the host side ------------------------------------------------------------------------

    def send_host(self, data):
        self.to_host += data

    def read_host(self, _events):
        try:
            data = os.read(0, 4 * CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        if not data:
            self.done = True  # the host is gone or done: end everything
            return
        self.from_host += data
        self.parse_host()

    def parse_host(self):
        while not self.done:
            newline = self.from_host.find(b"\n", 0, MAX_HEADER)
            if newline < 0:
                if len(self.from_host) >= MAX_HEADER:
                    self.fail("bad frame header from the host: %r" % bytes(self.from_host[:MAX_HEADER]))
                return
            parts = bytes(self.from_host[:newline]).split(b" ")
            if len(parts) == 3 and parts[1] == b"ack" and parts[0].isdigit() and parts[2].isdigit():
                del self.from_host[: newline + 1]
                self.acked(int(parts[0]), int(parts[2]))
                continue
            if len(parts) != 2 or not parts[0].isdigit() or not parts[1].isdigit():
                self.fail("bad frame header from the host: %r" % bytes(self.from_host[: newline + 1]))
                return
            length = int(parts[1])
            if len(self.from_host) < newline + 1 + length:
                return
            data = bytes(self.from_host[newline + 1 : newline + 1 + length])
            del self.from_host[: newline + 1 + length]
            self.route(int(parts[0]), data)

    def write_host(self, _events):
        try:
            written = os.write(1, self.to_host)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.done = True  # the host is gone
            return
        del self.to_host[:written]

    def fail(self, problem):
        self.problem = problem
        self.done = True

    # -- the guests' side ---------------------------------------------------------------------

    def accept(self, _events):
        # Take every waiting connection; a failure is one connection lost, never the relay.
        for _ in range(64):
            try:
                sock, _ = self.server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                if error.errno in EXHAUSTED:
                    # The listening socket stays readable: pause accepting until a connection goes.
                    self.accepting = False
                return
            sock.setblocking(False)
            connection = Connection(self.next_id, sock)
            self.next_id += 1
            self.connections[connection.id] = connection

    def acked(self, connection_id, count):
        connection = self.connections.get(connection_id)
        if connection is not None:
            connection.unacked = max(0, connection.unacked - count)

    def route(self, connection_id, data):
        connection = self.connections.get(connection_id)
        if connection is None:
            return  # the connection closed while the host was answering it
        if data:
            connection.to_guest += data
        else:
            connection.closing = True

    def read_guest(self, connection):
        room = REQUEST_WINDOW - connection.unacked
        if room <= 0:
            return  # the host acked less than this select was armed for; wait for its next ack
        try:
            data = connection.sock.recv(min(CHUNK, room))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.drop(connection)
            return
        connection.unacked += len(data)
        self.send_host(b"%d %d\n" % (connection.id, len(data)) + data)

    def write_guest(self, connection):
        try:
            written = connection.sock.send(connection.to_guest)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.drop(connection)  # EPIPE, reset: that guest is gone, the others are not
            return
        del connection.to_guest[:written]
        self.send_host(b"%d ack %d\n" % (connection.id, written))

    def drop(self, connection):
        """Closes one connection and tells the host, which drops its pending calls."""
        if self.connections.pop(connection.id, None) is None:
            return
        if connection.events:
            self.selector.unregister(connection.sock)
        connection.sock.close()
        self.send_host(b"%d 0\n" % connection.id)
        self.accepting = True

    def on_guest(self, connection, events):
        if events & selectors.EVENT_WRITE:
            self.write_guest(connection)
        if events & selectors.EVENT_READ and connection.id in self.connections:
            self.read_guest(connection)

    # -- the loop -----------------------------------------------------------------------------

    def watch(self):
        """Registers for exactly the events each descriptor can act on now."""
        wants_stdout = bool(self.to_host)
        if wants_stdout != self.stdout_watched:
            if wants_stdout:
                self.selector.register(1, selectors.EVENT_WRITE, self.write_host)
            else:
                self.selector.unregister(1)
            self.stdout_watched = wants_stdout
        server_events = selectors.EVENT_READ if self.accepting else 0
        self.set_events(self.server, server_events, self.accept)
        host_behind = len(self.to_host) >= MAX_TO_HOST
        for connection in list(self.connections.values()):
            if connection.closing and not connection.to_guest:
                self.drop(connection)
                continue
            events = 0
            if not connection.closing and not host_behind and connection.unacked < REQUEST_WINDOW:
                events |= selectors.EVENT_READ
            if connection.to_guest:
                events |= selectors.EVENT_WRITE
            self.set_events(connection.sock, events, self.guest_handler(connection), connection)

    def set_events(self, fileobj, events, handler, connection=None):
        current = connection.events if connection is not None else self.selector_events(fileobj)
        if events == current:
            return
        if current and events:
            self.selector.modify(fileobj, events, handler)
        elif events:
            self.selector.register(fileobj, events, handler)
        else:
            self.selector.unregister(fileobj)
        if connection is not None:
            connection.events = events

    def selector_events(self, fileobj):
        try:
            return self.selector.get_key(fileobj).events
        except KeyError:
            return 0

    def guest_handler(self, connection):
        return lambda events: self.on_guest(connection, events)

    def run(self):
        while not self.done:
            self.watch()
            for key, events in self.selector.select():
                key.data(events)
                if self.done:
                    break

    def shutdown(self):
        try:
            self.server.close()
        finally:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        for connection in list(self.connections.values()):
            try:
                connection.sock.close()
            except OSError:
                pass
        self.connections.clear()


def take_buffered_stdin():
    """What the bootstrap's buffered reader already holds beyond the source: the first frames."""
    stdin = sys.stdin.buffer
    if not isinstance(stdin, io.BufferedReader):
        return b""  # Nothing buffers, so nothing was read ahead.
    os.set_blocking(0, False)
    try:
        data = stdin.read1(1 << 20)
    except (BlockingIOError, ValueError):
        data = None
    return data or b""


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 relay.py SOCKET_PATH (or the bootstrap: python3 -c ... SOCKET_PATH)")
    relay = Relay(sys.argv[1], take_buffered_stdin())
    try:
        relay.parse_host()
        relay.run()
    finally:
        relay.shutdown()
    if relay.problem:
        sys.stderr.write("codecall relay: %s\n" % relay.problem)
        sys.stderr.flush()
    os._exit(2 if relay.problem else 0)


if __name__ == "__main__":
    main()
