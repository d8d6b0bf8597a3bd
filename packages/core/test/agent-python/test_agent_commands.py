"""Commands through the agent: exit codes and signals, stdio, env, cwd, timeouts and whole-tree kills."""
import hashlib
import os
import shutil
import signal
import tempfile
import time
import unittest
import zipfile

from agent_harness import TIMEOUT, AgentProcess, AgentTestCase, alive, read_pid, wait_gone
from agent_wire import CANCEL, DATA, END, WINDOW, credit_frame, frame


class CommandTest(AgentTestCase):

    def test_says_hello_with_its_environment_and_subreaper(self):
        hello = self.agent.hello
        self.assertEqual(hello["protocol"], 1)
        self.assertEqual(hello["window"], WINDOW)
        self.assertEqual(hello["env"].get("PATH"), os.environ.get("PATH"))
        self.assertEqual(hello["subreaper"], os.path.exists("/proc/self/stat"))

    def test_reports_stdout_stderr_and_the_exit_code(self):
        exit, out, err = self.agent.run("printf out; printf err >&2; exit 3")
        self.assertEqual((exit, out, err), ({"exit": 3, "signal": None, "timedOut": False}, b"out", b"err"))

    def test_reports_a_death_by_signal_as_128_plus_n_and_its_name(self):
        exit, _, _ = self.agent.run("kill -KILL $$")
        self.assertEqual((exit["exit"], exit["signal"]), (137, "SIGKILL"))

    def test_runs_an_argv_without_a_shell(self):
        exit, out, _ = self.agent.run(None, argv=["printf", "%s|", "a b", "$HOME"])
        self.assertEqual((exit["exit"], out), (0, b"a b|$HOME|"))

    def test_says_when_an_argv_program_does_not_exist(self):
        exit, _, err = self.agent.run(None, argv=["codecall-no-such-program"])
        self.assertEqual(exit["exit"], 127)
        self.assertIn(b"codecall-no-such-program", err)

    def test_passes_binary_stdin_and_stdout_unchanged(self):
        data = bytes(range(256)) * 200
        exit, out, _ = self.agent.run("cat", stdin=data)
        self.assertEqual((exit["exit"], out), (0, data))

    def test_takes_stdin_larger_than_the_window_as_credit_comes(self):
        data = os.urandom(4 * WINDOW + 123)
        exit, out, _ = self.agent.run("md5sum", stdin=data)
        self.assertEqual((exit["exit"], out.split()[0].decode()), (0, hashlib.md5(data).hexdigest()))

    def test_streams_stdin_while_the_command_runs(self):
        _, stdin, stdout, _ = self.agent.spawn("while read line; do echo got $line; done", close_stdin=False)
        for word in (b"one", b"two"):
            self.agent.send(frame(DATA, stdin, word + b"\n"))
            kind, _, payload = self.agent.take(lambda kind, channel, _p: channel == stdout and kind == DATA)
            self.assertEqual(payload, b"got " + word + b"\n")
            self.agent.send(credit_frame(stdout, len(payload)))
        self.agent.send(frame(END, stdin))
        self.assertEqual(self.agent.read_stream(stdout), b"")

    def test_unpacks_a_runs_archive_before_the_command_starts(self):
        archive = self.path("run.zip")
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as packed:
            packed.writestr("script.py", "print('hi')\n")
            packed.writestr("helper.py", "x = 1\n")
        exit, out, _ = self.agent.run("cat %s/script.py; ls %s" % (self.dir, self.dir), unpack=archive)
        self.assertEqual((exit["exit"], out), (0, b"print('hi')\nhelper.py\nrun.zip\nscript.py\n"))

    def test_does_not_start_the_command_when_the_archive_cannot_be_unpacked(self):
        marker = self.path("started")
        exit, _, err = self.agent.run("touch %s" % marker, unpack=self.path("missing.zip"))
        self.assertEqual(exit["exit"], 1)
        self.assertIn(b"codecall: cannot unpack the run's files from " + self.path("missing.zip").encode(), err)
        self.assertFalse(os.path.exists(marker))

    def test_sets_env_on_top_of_its_own_or_alone_with_clear_env(self):
        _, out, _ = self.agent.run('printf "%s|%s" "$CODECALL_A" "${PATH:+set}"', env={"CODECALL_A": "it's \"two\" $x\nline"})
        self.assertEqual(out, b"it's \"two\" $x\nline|set")
        _, out, _ = self.agent.run('printf "%s|%s" "$CODECALL_A" "${HOME:-unset}"', env={"CODECALL_A": "only"}, clearEnv=True)
        self.assertEqual(out, b"only|unset")

    def test_keeps_env_values_out_of_argv(self):
        command_id, _, stdout, _ = self.agent.spawn("cat /proc/$$/cmdline; sleep 0", env={"CODECALL_SECRET": "s3cr3t-value"})
        self.assertNotIn(b"s3cr3t-value", self.agent.read_stream(stdout))
        self.agent.event(command_id)

    def test_runs_in_the_working_directory_and_refuses_a_missing_one(self):
        _, out, _ = self.agent.run("pwd -P", cwd=self.dir)
        self.assertEqual(out.strip(), os.path.realpath(self.dir).encode())
        reply = self.agent.call("spawn", command="true", cwd=self.path("missing"), stdin=90, stdout=92, stderr=94)
        self.assertEqual(reply["error"]["code"], "INVALID_PATH")
        self.assertIn("missing", reply["error"]["message"])

    def test_resolves_a_relative_working_directory_from_its_own_not_the_last_command_s(self):
        for name in ("a", "b"):
            os.mkdir(self.path(name))
        agent = AgentProcess(cwd=self.dir)
        self.addCleanup(agent.close)
        # Shepherds are reused: the second command's "b" is the agent's b, not a/b.
        for name in ("a", "b", "a"):
            exit, out, err = agent.run("pwd -P", cwd=name)
            self.assertEqual((exit["exit"], out.strip(), err), (0, os.path.realpath(self.path(name)).encode(), b""))

    def test_refuses_a_command_or_env_with_a_nul_byte_as_one_it_cannot_run(self):
        exit, _, err = self.agent.run(None, argv=["printf", "a\x00b"])
        self.assertEqual(exit["exit"], 127)
        self.assertIn(b"codecall: cannot run printf", err)
        exit, _, err = self.agent.run("true", env={"CODECALL_A": "a\x00b"})
        self.assertEqual(exit["exit"], 127)
        # The shepherd lives on: the next command runs as usual.
        self.assertEqual(self.agent.run("echo on")[1], b"on\n")

    def test_enforces_the_timeout_itself_and_kills_the_whole_tree(self):
        pid_file = self.path("child.pid")
        started = time.monotonic()
        exit, out, _ = self.agent.run("echo partial; sleep 300 & echo $! > %s; wait" % pid_file, timeoutMs=300, graceMs=2000)
        self.assertTrue(exit["timedOut"])
        self.assertNotEqual(exit["exit"], 0)
        self.assertEqual(out, b"partial\n")
        self.assertLess(time.monotonic() - started, TIMEOUT)
        self.assertTrue(wait_gone(read_pid(pid_file)))

    def test_sends_sigkill_after_the_grace_when_sigterm_is_ignored(self):
        exit, _, _ = self.agent.run("trap '' TERM; sleep 300 & wait; sleep 300", timeoutMs=200, graceMs=200)
        self.assertEqual((exit["timedOut"], exit["signal"]), (True, "SIGKILL"))

    def test_kills_a_setsid_daemon_with_a_cleared_env_with_its_command(self):
        pid_file = self.path("daemon.pid")
        daemon = "setsid env -i /bin/sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > %s' </dev/null >/dev/null 2>&1" % pid_file
        command_id, _, stdout, _ = self.agent.spawn(daemon + "; echo up; sleep 300")
        kind, _, payload = self.agent.take(lambda kind, channel, _p: channel == stdout and kind == DATA)
        self.assertEqual(payload, b"up\n")
        pid = read_pid(pid_file)
        self.assertTrue(alive(pid))
        self.assertEqual(self.agent.call("kill", command=command_id, graceMs=0), {"ok": {}})
        exit = self.agent.event(command_id)
        self.assertEqual(exit["signal"], "SIGKILL")
        self.assertTrue(wait_gone(pid))

    def test_ends_what_a_command_leaves_running_when_it_exits(self):
        pid_file = self.path("left.pid")
        daemon = "setsid env -i /bin/sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > %s' </dev/null >/dev/null 2>&1" % pid_file
        exit, out, _ = self.agent.run(daemon + "; while [ ! -s %s ]; do sleep 0.02; done; echo exiting" % pid_file)
        self.assertEqual((exit["exit"], out), (0, b"exiting\n"))
        self.assertTrue(wait_gone(read_pid(pid_file)))

    def test_reports_a_killed_command_ended_though_its_shepherd_says_nothing(self):
        streams = [self.agent.new_id() for _ in range(3)]
        command_id = self.agent.request("spawn", command="sleep 300", stdin=streams[0], stdout=streams[1], stderr=streams[2])
        shepherd = self.agent.reply(command_id)["ok"]["pid"]
        # A stopped shepherd neither reaps its command nor reports: the agent must not wait on it.
        os.kill(shepherd, signal.SIGSTOP)
        self.addCleanup(lambda: alive(shepherd) and os.kill(shepherd, signal.SIGCONT))
        self.assertEqual(self.agent.call("kill", command=command_id, graceMs=0), {"ok": {}})
        exit = self.agent.event(command_id)
        self.assertEqual((exit["exit"], exit["signal"]), (137, "SIGKILL"))
        self.assertTrue(wait_gone(shepherd))
        # The next command gets a working shepherd.
        self.assertEqual(self.agent.run("echo next")[1], b"next\n")

    def test_answers_a_ping(self):
        self.assertEqual(self.agent.call("ping"), {"ok": {}})

    def test_kills_with_a_grace_sigterm_first(self):
        command_id, _, stdout, _ = self.agent.spawn("trap 'echo term; exit 7' TERM; echo ready; while :; do sleep 0.05; done")
        kind, _, payload = self.agent.take(lambda kind, channel, _p: channel == stdout and kind == DATA)
        self.assertEqual(payload, b"ready\n")
        self.agent.send(credit_frame(stdout, len(payload)))
        self.agent.call("kill", command=command_id, graceMs=5000)
        self.assertEqual(self.agent.read_stream(stdout), b"term\n")
        self.assertEqual(self.agent.event(command_id)["exit"], 7)

    def test_sends_no_more_than_the_window_until_credit_comes(self):
        command_id, _, stdout, _ = self.agent.spawn("head -c 3000000 /dev/zero")
        received = 0
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                kind, _, payload = self.agent.take(lambda kind, channel, _p: channel == stdout and kind == DATA, timeout=0.2)
            except Exception:
                continue
            received += len(payload)
        self.assertEqual(received, WINDOW)
        self.agent.send(credit_frame(stdout, received))
        rest = self.agent.read_stream(stdout)  # granting credit from here on
        self.assertEqual(received + len(rest), 3000000)
        self.assertEqual(self.agent.event(command_id)["exit"], 0)

    def test_closes_stdout_when_the_host_cancels_it(self):
        command_id, _, stdout, _ = self.agent.spawn(None, argv=["yes"])
        self.agent.take(lambda kind, channel, _p: channel == stdout and kind == DATA)
        self.agent.send(frame(CANCEL, stdout))
        exit = self.agent.event(command_id)
        self.assertEqual(exit["signal"], "SIGPIPE")

    def test_runs_many_commands_at_once(self):
        commands = [self.agent.spawn("sleep 0.2; echo %d" % index) for index in range(100)]
        outputs = [self.agent.read_stream(stdout) for _, _, stdout, _ in commands]
        self.assertEqual(outputs, [b"%d\n" % index for index in range(100)])
        for command_id, _, _, _ in commands:
            self.assertEqual(self.agent.event(command_id)["exit"], 0)


class AgentLifeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="codecall-agent-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def start_daemon_command(self, agent):
        pid_file = os.path.join(self.dir, "tree.pid")
        daemon = "setsid env -i /bin/sh -c 'sleep 300 </dev/null >/dev/null 2>&1 & echo $! > %s' </dev/null >/dev/null 2>&1" % pid_file
        agent.spawn(daemon + "; sleep 300")
        return read_pid(pid_file)

    def test_ends_everything_and_exits_when_its_stdin_ends(self):
        agent = AgentProcess()
        self.addCleanup(agent.close)
        pid = self.start_daemon_command(agent)
        agent.stdin.close()
        self.assertEqual(agent.process.wait(TIMEOUT), 0)
        self.assertTrue(wait_gone(pid))

    def test_its_commands_end_when_it_is_killed(self):
        agent = AgentProcess()
        self.addCleanup(agent.close)
        pid = self.start_daemon_command(agent)
        agent.process.send_signal(signal.SIGKILL)
        agent.process.wait(TIMEOUT)
        self.assertTrue(wait_gone(pid))

    def test_exits_with_a_message_on_garbage_from_the_host(self):
        agent = AgentProcess()
        self.addCleanup(agent.close)
        pid = self.start_daemon_command(agent)
        agent.send(b"\xff" * 64)
        self.assertEqual(agent.process.wait(TIMEOUT), 2)
        self.assertIn(b"unknown kind 255", agent.stderr.read())
        self.assertTrue(wait_gone(pid))


if __name__ == "__main__":
    unittest.main()
