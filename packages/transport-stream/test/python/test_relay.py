"""relay.py, run directly: this test is the host on its stdin/stdout and the guests on its socket."""
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

TIMEOUT = 10
GREETING = b"codecall-relay/1 ready\n"


class RelayTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="codecall-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.path = os.path.join(self.dir, "rpc.sock")
        relay = subprocess.Popen(
            [sys.executable, "-B", "-m", "relay", self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert relay.stdin and relay.stdout and relay.stderr
        self.relay, self.stdin, self.stdout, self.stderr = relay, relay.stdin, relay.stdout, relay.stderr
        self.addCleanup(self.stop)
        self.assertEqual(self.stdout.readline(), GREETING)

    def stop(self):
        if self.relay.poll() is None:
            self.relay.kill()
        self.relay.wait(TIMEOUT)
        for stream in (self.stdin, self.stdout, self.stderr):
            stream.close()

    def send_host(self, data):
        self.stdin.write(data)
        self.stdin.flush()

    def read_line(self):
        return self.stdout.readline()

    def guest(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(TIMEOUT)
        sock.connect(self.path)
        self.addCleanup(sock.close)
        return sock

    def test_listens_on_a_private_socket(self):
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)

    def test_carries_bytes_both_ways_and_acks_what_the_guest_took(self):
        guest = self.guest()
        guest.sendall(b"hello relay")
        self.assertEqual(self.read_line(), b"1 11\n")
        self.assertEqual(self.stdout.read(11), b"hello relay")
        self.send_host(b"1 ack 11\n1 6\nanswer")
        self.assertEqual(guest.recv(64), b"answer")
        self.assertEqual(self.read_line(), b"1 ack 6\n")

    def test_tells_the_host_when_a_guest_goes_and_closes_a_guest_the_host_ends(self):
        first, second = self.guest(), self.guest()
        first.sendall(b"x")
        second.sendall(b"y")
        seen = {self.read_line(): self.stdout.read(1) for _ in range(2)}
        self.assertEqual(seen, {b"1 1\n": b"x", b"2 1\n": b"y"})
        first.close()
        self.assertEqual(self.read_line(), b"1 0\n")
        self.send_host(b"2 0\n")
        self.assertEqual(second.recv(64), b"")

    def test_ends_when_its_stdin_ends_and_removes_its_socket(self):
        self.stdin.close()
        self.assertEqual(self.relay.wait(TIMEOUT), 0)
        self.assertFalse(os.path.exists(self.path))

    def test_fails_on_a_bad_frame_header_from_the_host(self):
        self.send_host(b"not a header\n")
        self.assertEqual(self.relay.wait(TIMEOUT), 2)
        self.assertEqual(self.stderr.read(), b"codecall relay: bad frame header from the host: b'not a header\\n'\n")


if __name__ == "__main__":
    unittest.main()
