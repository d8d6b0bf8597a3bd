# codecall environment agent: a Unix socket the host listens on through the agent.
#
# The stream transport's relay lives here: processes in the environment connect to the socket
# (0600, in the run's private directory) and each connection becomes two streams to the host, one
# each way, announced by a "connection" event. The agent knows nothing of what they carry.
import errno
import os
import socket

from agent_loop import READ
from agent_streams import Sink, SocketEndpoint, Source
from agent_wire import EVENT, json_frame

# accept() failures that mean "out of descriptors or memory": wait for a connection to close.
EXHAUSTED = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
ACCEPT_PAUSE_SECONDS = 0.1


class Listener:
    def __init__(self, agent, listener_id, path):
        self.agent = agent
        self.id = listener_id
        self.path = path
        self.connections = []
        self.closed = False
        old_umask = os.umask(0o077)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind(path)
            os.chmod(path, 0o600)
            server.listen(socket.SOMAXCONN)
        except OSError:
            server.close()
            raise
        finally:
            os.umask(old_umask)
        server.setblocking(False)
        self.server = server
        agent.watcher.set(server, READ, self.accept)

    def accept(self, _mask):
        # Take every waiting connection; a failure is one connection lost, never the listener.
        for _ in range(64):
            try:
                sock, _ = self.server.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                if error.errno in EXHAUSTED:
                    self.agent.watcher.set(self.server, 0, self.accept)
                    self.agent.timers.call_later(ACCEPT_PAUSE_SECONDS, self.resume)
                return
            sock.setblocking(False)
            self.connections = [endpoint for endpoint in self.connections if not endpoint.closed]
            endpoint = SocketEndpoint(self.agent, sock)
            self.connections.append(endpoint)
            incoming, outgoing = self.agent.new_stream_id(), self.agent.new_stream_id()
            # Announced before any of its bytes: the loop reads the socket on a later turn.
            self.agent.send(json_frame(EVENT, self.id, {"connection": [incoming, outgoing]}))
            Source(self.agent, endpoint, incoming)
            Sink(self.agent, endpoint, outgoing)

    def resume(self):
        if not self.closed:
            self.agent.watcher.set(self.server, READ, self.accept)

    def close(self):
        """Stops listening, removes the socket and ends every connection."""
        if self.closed:
            return
        self.closed = True
        self.agent.watcher.forget(self.server)
        self.server.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass
        for endpoint in self.connections:
            endpoint.abort()
        self.connections = []
