"""socket_client's leader/follower reading: who reads the answers, and how the reading is handed
over, against a host played by this test that answers when the test says so."""
import json
import os
import queue
import random
import signal
import socket
import threading
import unittest

from _codecall_protocol import ToolError
from socket_client import SocketClient
from test_socket_client import TIMEOUT, TOKEN, FakeHost, answer, disconnect


class ScriptedHost:
    """A host that queues each request it reads (with its connection) and answers only when told."""

    def __init__(self):
        self.requests = queue.Queue()
        self.connections = []
        self._host = FakeHost(self._serve)
        self.path = self._host.path
        self.hellos = self._host.hellos

    def _serve(self, _hello, reader, connection):
        self.connections.append(connection)
        for line in reader:
            self.requests.put((json.loads(line), connection))

    def next_request(self):
        """(request, connection) of the next request the host read."""
        return self.requests.get(timeout=TIMEOUT)

    def close(self):
        self._host.close()


def echo_answer(request):
    return answer(request["id"], result=request["params"]["arguments"].get("text"))


class InThread:
    """Runs a blocking call in a thread of its own; `outcome()` waits for its result or error."""

    def __init__(self, client, text):
        self._outcome = queue.Queue()
        self.thread = threading.Thread(target=self._run, args=(client, text), daemon=True)
        self.thread.start()

    def _run(self, client, text):
        try:
            self._outcome.put(("result", client.call("tools/call", {"name": "echo", "arguments": {"text": text}})))
        except ToolError as error:
            self._outcome.put(("error", error))

    def outcome(self):
        return self._outcome.get(timeout=TIMEOUT)

    def pending(self):
        return self._outcome.empty()


class HandoverTest(unittest.TestCase):
    def setUp(self):
        self.host = ScriptedHost()
        self.addCleanup(self.host.close)
        self.client = SocketClient(self.host.path, TOKEN)
        self.addCleanup(disconnect, self.client)

    def connection(self):
        connection = self.client._connection
        assert connection is not None
        return connection

    def call_in_thread(self, text):
        """Starts a blocking call and returns it once the host has its request."""
        call = InThread(self.client, text)
        request, connection = self.host.next_request()
        self.assertEqual(request["params"]["arguments"]["text"], text)
        return call, request, connection

    def test_a_lone_blocking_call_reads_its_own_answer_without_a_reader_thread(self):
        def answer_next():
            request, connection = self.host.next_request()
            connection.sendall(echo_answer(request))

        for text in ("a", "b", "c"):
            helper = threading.Thread(target=answer_next)
            helper.start()
            self.assertEqual(self.client.call("tools/call", {"name": "echo", "arguments": {"text": text}}), text)
            helper.join(TIMEOUT)
        self.assertIsNone(self.connection().background)
        self.assertFalse(self.connection().reading)

    def test_the_leader_settles_another_thread_s_answer_it_reads_and_goes_on_reading(self):
        leader, leader_request, connection = self.call_in_thread("leader")
        follower, follower_request, _ = self.call_in_thread("follower")
        # The follower's answer arrives while the leader reads: the leader hands it over...
        connection.sendall(echo_answer(follower_request))
        self.assertEqual(follower.outcome(), ("result", "follower"))
        # ...and still gets its own.
        self.assertTrue(leader.pending())
        connection.sendall(echo_answer(leader_request))
        self.assertEqual(leader.outcome(), ("result", "leader"))

    def test_the_leader_hands_the_reading_to_a_waiting_call_when_its_own_answer_comes_first(self):
        leader, leader_request, connection = self.call_in_thread("leader")
        followers = [self.call_in_thread(text) for text in ("one", "two")]
        connection.sendall(echo_answer(leader_request))
        self.assertEqual(leader.outcome(), ("result", "leader"))
        leader.thread.join(TIMEOUT)
        # The leader's thread has ended: the answers can only be read by a follower it promoted.
        for call, request, _ in reversed(followers):
            connection.sendall(echo_answer(request))
        self.assertEqual([call.outcome() for call, _, _ in followers], [("result", "one"), ("result", "two")])
        self.assertIsNone(self.connection().background)

    def test_answers_that_arrive_together_all_reach_their_calls(self):
        calls = [self.call_in_thread(text) for text in ("a", "b", "c")]
        # One write: the answers after the first wait in the leader's buffer, which goes with the role.
        calls[0][2].sendall(b"".join(echo_answer(request) for _, request, _ in calls))
        self.assertEqual([call.outcome() for call, _, _ in calls], [("result", "a"), ("result", "b"), ("result", "c")])

    def test_futures_left_waiting_by_a_leader_are_read_by_the_background_reader(self):
        leader, leader_request, connection = self.call_in_thread("leader")
        future = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "later"}})
        future_request, _ = self.host.next_request()
        connection.sendall(echo_answer(leader_request))
        self.assertEqual(leader.outcome(), ("result", "leader"))
        connection.sendall(echo_answer(future_request))
        self.assertEqual(future.result(TIMEOUT), "later")
        self.assertIsNotNone(self.connection().background)

    def test_a_blocking_call_takes_the_reading_back_from_the_background_reader(self):
        future = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "future"}})
        future_request, connection = self.host.next_request()
        call, call_request, _ = self.call_in_thread("call")
        connection.sendall(echo_answer(future_request))
        self.assertEqual(future.result(TIMEOUT), "future")
        connection.sendall(echo_answer(call_request))
        self.assertEqual(call.outcome(), ("result", "call"))

    def test_a_connection_that_closes_fails_the_leader_every_follower_and_every_future(self):
        leader, _, connection = self.call_in_thread("leader")
        followers = [self.call_in_thread(text)[0] for text in ("one", "two")]
        future = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "future"}})
        self.host.next_request()
        connection.shutdown(socket.SHUT_RDWR)
        closed = "echo: the connection to the codecall host closed; the call was not retried"
        for call in [leader, *followers]:
            kind, error = call.outcome()
            self.assertEqual((kind, str(error)), ("error", closed))
        self.assertEqual(str(future.exception(TIMEOUT)), closed)
        # The next call opens a new connection.
        again = InThread(self.client, "again")
        request, new_connection = self.host.next_request()
        self.assertIsNot(new_connection, connection)
        new_connection.sendall(echo_answer(request))
        self.assertEqual(again.outcome(), ("result", "again"))
        self.assertEqual(len(self.host.hellos), 2)

    def test_a_leader_interrupted_while_reading_hands_the_reading_over(self):
        # unittest runs this in the main thread, the only one Python runs signal handlers in.
        class Interrupted(Exception):
            pass

        def interrupt(_signum, _frame):
            raise Interrupted()

        previous = signal.signal(signal.SIGUSR1, interrupt)
        self.addCleanup(signal.signal, signal.SIGUSR1, previous)
        main = threading.get_ident()
        follower_ready = threading.Event()
        follower_outcome = []

        def follow():
            request, connection = self.host.next_request()  # The main thread's.
            follower = InThread(self.client, "follower")
            follower_request, _ = self.host.next_request()
            follower_ready.set()
            signal.pthread_kill(main, signal.SIGUSR1)
            # The follower's answer comes after the main thread gave up: someone must still read it.
            connection.sendall(echo_answer(follower_request) + echo_answer(request))
            follower_outcome.append(follower.outcome())

        helper = threading.Thread(target=follow)
        helper.start()
        with self.assertRaises(Interrupted):
            self.client.call("tools/call", {"name": "echo", "arguments": {"text": "main"}})
        helper.join(TIMEOUT)
        self.assertTrue(follower_ready.is_set())
        self.assertEqual(follower_outcome, [("result", "follower")])
        # The abandoned call's late answer went nowhere; the connection still serves calls.
        later = InThread(self.client, "later")
        request, connection = self.host.next_request()
        connection.sendall(echo_answer(request))
        self.assertEqual(later.outcome(), ("result", "later"))

    def interrupt_after_next_send(self):
        """Makes the connection's next send go out whole and then raise, as a signal handler's
        exception (KeyboardInterrupt) does when the signal came during the send: Python runs the
        handler once the system call has returned. Returns the exception's class."""

        class Interrupted(Exception):
            pass

        connection = self.connection()
        real = connection.sock

        class SendThenRaise:
            def sendall(self, data):
                real.sendall(data)
                connection.sock = real
                raise Interrupted()

            def __getattr__(self, name):
                return getattr(real, name)

        connection.sock = SendThenRaise()  # pyright: ignore[reportAttributeAccessIssue] -- a socket in all it is asked
        return Interrupted

    def open_connection(self):
        """Opens the client's connection with one answered call; returns the host's end of it."""
        opening, request, connection = self.call_in_thread("open")
        connection.sendall(echo_answer(request))
        self.assertEqual(opening.outcome(), ("result", "open"))
        return connection

    def test_a_blocking_call_interrupted_just_after_its_send_gives_the_reading_up(self):
        connection = self.open_connection()
        interrupted = self.interrupt_after_next_send()
        with self.assertRaises(interrupted):
            self.client.call("tools/call", {"name": "echo", "arguments": {"text": "abandoned"}})
        abandoned, _ = self.host.next_request()  # It went out.
        self.assertFalse(self.connection().reading)
        later, later_request, _ = self.call_in_thread("later")
        # The abandoned call's answer comes first and goes nowhere; the next call is not left
        # waiting for a reader that is gone.
        connection.sendall(echo_answer(abandoned) + echo_answer(later_request))
        self.assertEqual(later.outcome(), ("result", "later"))

    def test_a_submit_interrupted_just_after_its_send_gives_the_reading_up(self):
        connection = self.open_connection()
        interrupted = self.interrupt_after_next_send()
        with self.assertRaises(interrupted):
            self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "abandoned"}})
        abandoned, _ = self.host.next_request()
        self.assertFalse(self.connection().reading)
        future = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": "later"}})
        later_request, _ = self.host.next_request()
        connection.sendall(echo_answer(abandoned) + echo_answer(later_request))
        self.assertEqual(future.result(TIMEOUT), "later")

    def test_a_follower_interrupted_just_after_its_send_leaves_the_leader_reading(self):
        leader, leader_request, connection = self.call_in_thread("leader")
        interrupted = self.interrupt_after_next_send()
        with self.assertRaises(interrupted):
            self.client.call("tools/call", {"name": "echo", "arguments": {"text": "abandoned"}})
        abandoned, _ = self.host.next_request()
        self.assertTrue(self.connection().reading)  # Still the leader's.
        connection.sendall(echo_answer(abandoned) + echo_answer(leader_request))
        self.assertEqual(leader.outcome(), ("result", "leader"))
        self.assertFalse(self.connection().reading)

    def test_a_call_interrupted_as_it_hands_the_reading_on_still_hands_it_on(self):
        # The exception lands as the hand-over starts (a signal handler runs at a function's entry).
        host_end = self.open_connection()

        class Interrupted(Exception):
            pass

        real = self.client._pass_reading
        raised = []

        def interrupted_once(connection):
            if not raised:
                raised.append(True)
                raise Interrupted()
            return real(connection)

        self.client._pass_reading = interrupted_once

        def answer_next():
            request, _ = self.host.next_request()
            host_end.sendall(echo_answer(request))

        helper = threading.Thread(target=answer_next)
        helper.start()
        with self.assertRaises(Interrupted):
            self.client.call("tools/call", {"name": "echo", "arguments": {"text": "interrupted"}})
        helper.join(TIMEOUT)
        self.assertFalse(self.connection().reading)
        later, later_request, _ = self.call_in_thread("later")
        host_end.sendall(echo_answer(later_request))
        self.assertEqual(later.outcome(), ("result", "later"))

    def test_many_threads_and_futures_each_get_their_own_answer_whatever_the_order(self):
        # The host answers in shuffled batches of 1-4, in one write each: every kind of hand-over
        # (answer for another thread, own answer first, answers left in the buffer) happens.
        def answer_shuffled():
            held = []
            while True:
                try:
                    request, connection = self.host.requests.get(timeout=0.05 if held else TIMEOUT)
                    held.append(request)
                    if len(held) < random.randint(1, 4):
                        continue
                except queue.Empty:
                    if not held:
                        return
                random.shuffle(held)
                connection.sendall(b"".join(echo_answer(request) for request in held))
                held = []

        threading.Thread(target=answer_shuffled, daemon=True).start()
        failures = []

        def work(worker):
            for n in range(150):
                text = "%d-%d" % (worker, n)
                if n % 5 == 0:
                    got = self.client.submit("tools/call", {"name": "echo", "arguments": {"text": text}}).result(TIMEOUT)
                else:
                    got = self.client.call("tools/call", {"name": "echo", "arguments": {"text": text}})
                if got != text:
                    failures.append((text, got))

        workers = [threading.Thread(target=work, args=(worker,)) for worker in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        self.assertFalse(any(worker.is_alive() for worker in workers), "a call never got its answer")
        self.assertEqual(failures, [])

    @unittest.skipUnless(hasattr(os, "fork"), "needs os.fork")
    def test_a_forked_child_calls_on_a_connection_of_its_own_and_the_parent_goes_on(self):
        def answer_all():
            while True:
                try:
                    request, connection = self.host.next_request()
                except queue.Empty:
                    return
                connection.sendall(echo_answer(request))

        threading.Thread(target=answer_all, daemon=True).start()
        self.assertEqual(self.client.call("tools/call", {"name": "echo", "arguments": {"text": "before"}}), "before")
        pid = os.fork()
        if pid == 0:  # The child: exits 0 only if its calls are answered.
            try:
                # The fork handler of the module's own client does this for the module's client.
                self.client.after_fork()
                results = [self.client.call("tools/call", {"name": "echo", "arguments": {"text": str(n)}}) for n in range(3)]
                os._exit(0 if results == ["0", "1", "2"] else 1)
            except BaseException:
                os._exit(2)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        self.assertEqual(self.client.call("tools/call", {"name": "echo", "arguments": {"text": "after"}}), "after")
        self.assertEqual(len(self.host.hellos), 2)


if __name__ == "__main__":
    unittest.main()
