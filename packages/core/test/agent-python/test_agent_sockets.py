"""A Unix socket served through the agent: each connection is a stream pair to the host."""
import os
import socket
import stat
import unittest

from agent_harness import TIMEOUT, AgentTestCase
from agent_wire import CANCEL, DATA, END, WINDOW, frame


class SocketTest(AgentTestCase):
    def setUp(self):
        AgentTestCase.setUp(self)
        self.socket_path = os.path.join(self.dir, "rpc.sock")
        self.listener = self.agent.request("listen", path=self.socket_path)
        self.assertEqual(self.agent.reply(self.listener), {"ok": {}})

    def guest(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(TIMEOUT)
        sock.connect(self.socket_path)
        self.addCleanup(sock.close)
        incoming, outgoing = self.agent.event(self.listener)["connection"]
        return sock, incoming, outgoing

    def test_listens_on_a_private_socket(self):
        self.assertEqual(stat.S_IMODE(os.stat(self.socket_path).st_mode), 0o600)

    def test_carries_bytes_both_ways_per_connection(self):
        first, first_in, first_out = self.guest()
        second, second_in, second_out = self.guest()
        self.assertEqual(len({first_in, first_out, second_in, second_out}), 4)
        first.sendall(b"from one")
        second.sendall(b"from two")
        for stream, expected in ((first_in, b"from one"), (second_in, b"from two")):
            _, _, payload = self.agent.take(lambda kind, channel, _p, s=stream: kind == DATA and channel == s)
            self.assertEqual(payload, expected)
        self.agent.send(frame(DATA, second_out, b"to two"))
        self.assertEqual(second.recv(100), b"to two")

    def test_ends_the_stream_when_the_guest_closes_and_the_guest_when_the_host_ends(self):
        sock, incoming, outgoing = self.guest()
        sock.shutdown(socket.SHUT_WR)
        self.assertEqual(self.agent.read_stream(incoming), b"")
        self.agent.send(frame(DATA, outgoing, b"last words"))
        self.agent.send(frame(END, outgoing))
        self.assertEqual(sock.recv(100), b"last words")
        self.assertEqual(sock.recv(100), b"")

    def test_holds_back_a_guest_that_sends_more_than_the_host_takes(self):
        sock, incoming, _ = self.guest()
        sock.setblocking(False)
        sent = 0
        try:
            while sent < 10 * WINDOW:
                sent += sock.send(b"x" * 65536)
        except BlockingIOError:
            pass  # the socket buffers filled: the agent stopped reading at its window
        self.assertLess(sent, 10 * WINDOW)
        sock.setblocking(True)

    def test_cancels_the_outgoing_stream_when_the_guest_is_gone(self):
        sock, incoming, outgoing = self.guest()
        sock.close()
        self.assertEqual(self.agent.read_stream(incoming), b"")
        self.agent.send(frame(DATA, outgoing, b"x" * 1000))
        self.agent.take(lambda kind, channel, _p: kind == CANCEL and channel == outgoing)

    def test_stops_listening_and_removes_the_socket(self):
        sock, incoming, _ = self.guest()
        self.assertEqual(self.agent.call("unlisten", listener=self.listener), {"ok": {}})
        self.assertFalse(os.path.exists(self.socket_path))
        self.assertEqual(self.agent.read_stream(incoming), b"")
        self.assertEqual(sock.recv(100), b"")


if __name__ == "__main__":
    unittest.main()
