"""sitecustomize (the guest's start-up hook), run in real interpreters that start with the runtime
dir on PYTHONPATH, as a run's script does."""
import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest

import _codecall_protocol

# The runtime modules' dir, which holds the hook (sys.modules may hold another sitecustomize).
RUNTIME_DIR = os.path.dirname(os.path.abspath(_codecall_protocol.__file__))
TIMEOUT = 20

# Prints without flushing, says on stderr (line-buffered) that it did, then waits to be killed.
PRINTS_THEN_WAITS = "import sys, time\nprint('partial line')\nsys.stderr.write('ready\\n')\ntime.sleep(60)\n"


def start(code, buffered=True, extra_path=None, lines=False, named="$$", **options):
    """Runs `code` as a run's script: its own pid in CODECALL_SCRIPT_PID, as the launcher sets it
    (the shell execs the interpreter, which keeps the shell's pid), or `named` there instead."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join([RUNTIME_DIR] + ([extra_path] if extra_path else []))}
    if lines:
        env.update(CODECALL_OUTPUT="lines", PYTHONUNBUFFERED="1")
    elif buffered:
        env["CODECALL_OUTPUT"] = "buffered"
    command = ["sh", "-c", 'CODECALL_SCRIPT_PID=%s exec "$0" -B -c "$1"' % named, sys.executable, code]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **options)


def ready(process):
    """Waits until the script said `ready` on stderr."""
    assert process.stderr is not None
    return process.stderr.readline() == b"ready\n"


def terminate_when_ready(process):
    """Waits for the script's `ready`, sends SIGTERM, and returns (returncode, stdout)."""
    assert ready(process)
    process.send_signal(signal.SIGTERM)
    stdout, _ = process.communicate(timeout=TIMEOUT)
    return process.returncode, stdout


class SiteCustomizeTest(unittest.TestCase):
    def test_a_kill_by_sigterm_keeps_what_the_buffer_held_and_ends_by_sigterm(self):
        self.assertEqual(terminate_when_ready(start(PRINTS_THEN_WAITS)), (-signal.SIGTERM, b"partial line\n"))

    def test_without_the_hook_a_kill_loses_the_buffer(self):
        # The control: what the test above keeps is the hook's doing, not Python's.
        self.assertEqual(terminate_when_ready(start(PRINTS_THEN_WAITS, buffered=False)), (-signal.SIGTERM, b""))

    def test_sighup_flushes_too(self):
        process = start(PRINTS_THEN_WAITS)
        self.assertTrue(ready(process))
        process.send_signal(signal.SIGHUP)
        stdout, _ = process.communicate(timeout=TIMEOUT)
        self.assertEqual((process.returncode, stdout), (-signal.SIGHUP, b"partial line\n"))

    def test_a_session_leader_named_so_is_the_script_and_its_python_subprocesses_are_not(self):
        # As an environment agent's shepherd starts a script: the first process of its own session.
        code = textwrap.dedent(
            """
            import _signal, os, signal, subprocess, sys
            print(os.environ["CODECALL_SCRIPT_PID"] == str(os.getpid()), _signal.getsignal(signal.SIGTERM) != signal.SIG_DFL)
            check = "import _signal, signal; print(_signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)"
            print(subprocess.run([sys.executable, "-c", check], start_new_session=True, stdout=subprocess.PIPE).stdout.decode().strip())
            """
        )
        stdout, _ = start(code, named="session-leader", start_new_session=True).communicate(timeout=TIMEOUT)
        self.assertEqual(stdout, b"True True\nTrue\n")

    def test_a_process_named_session_leader_that_leads_no_session_is_not_the_script(self):
        code = "import _signal, signal\nprint(_signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)\n"
        stdout, _ = start(code, named="session-leader").communicate(timeout=TIMEOUT)
        self.assertEqual(stdout, b"True\n")

    def test_a_fork_does_not_print_what_the_parent_printed_twice(self):
        code = "import os\nprint('before fork')\nif os.fork() == 0:\n    print('child')\nelse:\n    os.wait()\n    print('parent')\n"
        stdout, _ = start(code).communicate(timeout=TIMEOUT)
        self.assertEqual(stdout, b"before fork\nchild\nparent\n")

    def test_children_keep_the_default_sigterm_and_print_by_lines(self):
        # A handler in a child that runs late (a signal just before a blocking call) would hang
        # multiprocessing's Pool.terminate(), which waits for its workers without a deadline.
        code = textwrap.dedent(
            """
            import _signal, os, signal, subprocess, sys
            def describe(who):
                return "%s %s %s" % (who, _signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, sys.stdout.line_buffering)
            print(describe("script"))
            if os.fork() == 0:
                print(describe("forked"))
                os._exit(0)
            os.wait()
            sys.stdout.flush()
            subprocess.run([sys.executable, "-B", "-c", "import _signal, signal, sys; print('subprocess', _signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, sys.stdout.line_buffering)"])
            """
        )
        stdout, _ = start(code).communicate(timeout=TIMEOUT)
        # The forked child leaves by os._exit, which flushes nothing: only its line buffering got it out.
        self.assertEqual(stdout, b"script False False\nforked True True\nsubprocess True True\n")

    def test_a_pool_with_fork_workers_ends_every_time(self):
        code = textwrap.dedent(
            """
            import multiprocessing
            for _ in range(60):
                with multiprocessing.get_context("fork").Pool(3) as pool:
                    assert sorted(pool.map(str, range(6))) == [str(n) for n in range(6)]
            print("all ended")
            """
        )
        stdout, _ = start(code).communicate(timeout=120)
        self.assertEqual(stdout, b"all ended\n")

    def test_an_ignored_sigterm_stays_ignored(self):
        process = start(PRINTS_THEN_WAITS, preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
        self.assertTrue(ready(process))
        process.send_signal(signal.SIGTERM)
        with self.assertRaises(subprocess.TimeoutExpired):
            process.wait(timeout=0.5)
        process.kill()
        process.communicate(timeout=TIMEOUT)

    def test_runs_the_sitecustomize_it_shadows(self):
        with tempfile.TemporaryDirectory() as other:
            with open(os.path.join(other, "sitecustomize.py"), "w") as hook:
                hook.write("import sys\nsys.stdout.write('the interpreter hook ran\\n')\n")
            code = textwrap.dedent(
                """
                import _signal, signal, sys
                print(sys.modules["sitecustomize"].__file__.endswith("sitecustomize.py"), _signal.getsignal(signal.SIGTERM) != signal.SIG_DFL)
                """
            )
            stdout, stderr = start(code, extra_path=other).communicate(timeout=TIMEOUT)
        self.assertEqual(stderr, b"")
        self.assertEqual(stdout, b"the interpreter hook ran\nTrue True\n")

    def test_live_output_arrives_a_line_at_a_time_in_one_write_each(self):
        # The script prints half a line and says so on stderr: nothing may be in the pipe yet (an
        # unbuffered stdout would have written it). Then the rest of the line comes in one piece.
        code = "import sys\nprint('first')\nprint('second', end='')\nsys.stderr.write('ready\\n')\nsys.stdin.readline()\nprint(' line')\n"
        process = start(code, lines=True, stdin=subprocess.PIPE)
        assert process.stdout is not None and process.stdin is not None
        self.assertEqual(process.stdout.readline(), b"first\n")
        self.assertTrue(ready(process))
        self.assertEqual(select.select([process.stdout], [], [], 0)[0], [])
        process.stdin.write(b"go\n")
        process.stdin.flush()
        self.assertEqual(os.read(process.stdout.fileno(), 100), b"second line\n")
        process.communicate(timeout=TIMEOUT)

    def test_live_output_keeps_a_partial_line_at_a_kill(self):
        code = "import sys, time\nprint('partial', end='')\nsys.stderr.write('ready\\n')\ntime.sleep(60)\n"
        self.assertEqual(terminate_when_ready(start(code, lines=True)), (-signal.SIGTERM, b"partial"))

    def test_does_nothing_to_signals_unless_the_output_is_buffered(self):
        code = "import _signal, signal\nprint(_signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)"
        stdout, _ = start(code, buffered=False).communicate(timeout=TIMEOUT)
        self.assertEqual(stdout, b"True\n")


if __name__ == "__main__":
    unittest.main()
