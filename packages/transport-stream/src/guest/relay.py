# codecall stream relay: runs inside the environment as one long-lived process whose stdin and
# stdout are the host's only link to it (a docker exec, an ssh channel). It listens on a private
# Unix socket for the script's processes and moves bytes between each of their connections and the
# host, multiplexed on stdio:
#
#   host -> relay   "<length>\n" and this file's source, which a `python -c` bootstrap reads and runs
#   relay -> host   "codecall-relay/1 ready\n" once the socket listens, then frames
#   both ways       "<connection> <length>\n" followed by exactly <length> bytes;
#                   length 0 means the connection closed (or, from the host: close it)
#
# It knows nothing of JSON-RPC: the host decodes frames, checks tokens and enforces limits, so the
# guest speaks to it exactly as to the uds transport's socket. It exits when its stdin ends.
import os
import socket
import sys
import threading

GREETING = b"codecall-relay/1 ready\n"
CHUNK = 65536
MAX_HEADER = 64


class Relay:
    def __init__(self, path):
        self.path = path
        self.out = sys.stdout.buffer
        self.out_lock = threading.Lock()
        self.connections = {}
        self.connections_lock = threading.Lock()
        self.next_id = 1
        old_umask = os.umask(0o077)
        try:
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(path)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        self.server.listen(128)

    def emit(self, connection_id, data):
        header = b"%d %d\n" % (connection_id, len(data))
        with self.out_lock:
            self.out.write(header + data)
            self.out.flush()

    def accept_loop(self):
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            with self.connections_lock:
                connection_id = self.next_id
                self.next_id += 1
                self.connections[connection_id] = sock
            threading.Thread(target=self.read_loop, args=(connection_id, sock), daemon=True).start()

    def read_loop(self, connection_id, sock):
        try:
            while True:
                data = sock.recv(CHUNK)
                if not data:
                    break
                self.emit(connection_id, data)
        except OSError:
            pass
        finally:
            with self.connections_lock:
                known = self.connections.pop(connection_id, None) is not None
            sock.close()
            if known:
                try:
                    self.emit(connection_id, b"")
                except OSError:
                    pass

    def route(self, connection_id, data):
        with self.connections_lock:
            sock = self.connections.get(connection_id)
        if sock is None:
            return  # the connection closed while the host was answering it
        try:
            if data:
                sock.sendall(data)
            else:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # its reader sees the failure and reports the close

    def host_loop(self):
        """Routes the host's frames until its stdin ends; returns why it stopped early, if it did."""
        stdin = sys.stdin.buffer
        while True:
            header = stdin.readline(MAX_HEADER)
            if not header:
                return None
            parts = header.split()
            if len(parts) != 2 or not header.endswith(b"\n") or not parts[0].isdigit() or not parts[1].isdigit():
                return "bad frame header from the host: %r" % header
            length = int(parts[1])
            data = stdin.read(length) if length else b""
            if len(data) != length:
                return "the host's stdin ended inside a frame"
            self.route(int(parts[0]), data)

    def shutdown(self):
        try:
            self.server.close()
        finally:
            try:
                os.unlink(self.path)
            except OSError:
                pass
        with self.connections_lock:
            sockets = list(self.connections.values())
            self.connections.clear()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 relay.py SOCKET_PATH (or the bootstrap: python3 -c ... SOCKET_PATH)")
    relay = Relay(sys.argv[1])
    problem = None
    try:
        with relay.out_lock:
            relay.out.write(GREETING)
            relay.out.flush()
        threading.Thread(target=relay.accept_loop, daemon=True).start()
        problem = relay.host_loop()
    except BrokenPipeError:
        pass  # the host is gone
    finally:
        relay.shutdown()
    if problem:
        sys.stderr.write("codecall relay: %s\n" % problem)
        sys.stderr.flush()
    # Daemon reader threads may still be blocked in a write to a dead stdout: do not wait for them.
    os._exit(2 if problem else 0)


if __name__ == "__main__":
    main()
