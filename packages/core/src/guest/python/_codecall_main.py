# codecall script runner: runs SCRIPT as the main program under a name of the caller's choosing.
# Invoked by the launcher as `python3 [FLAGS] _codecall_main.py SCRIPT NAME` when the host gave the
# script a name (the CLI passes the path the user typed, e.g. my_script.py), so that tracebacks,
# warnings and syntax errors say `File "my_script.py", line 3` instead of naming the run dir's copy.
#
# Names are for people, paths for programs: the code is compiled under NAME (its frames, and so
# every traceback, warning and SyntaxError, show it), while __file__ and sys.argv[0] stay the
# real copy, which exists wherever the script runs (multiprocessing and __file__-relative reads
# need a path that is there). Source lines in tracebacks come from the copy too: linecache is
# given them under NAME, so a file of that name in the working directory (or none) cannot show
# other lines.


def main():
    # The module's globals are about to become the script's (the runner runs as __main__, and the
    # script must too, for pickle and friends): what is needed after that is held in locals.
    import io
    import linecache
    import sys
    import tokenize
    from importlib.machinery import SourceFileLoader

    runner = __file__
    script, name = sys.argv[1], sys.argv[2]

    def report_uncaught(kind, error, traceback):
        # The runner's own frames lead every traceback; the script's start after them.
        while traceback is not None and traceback.tb_frame.f_code.co_filename == runner:
            traceback = traceback.tb_next
        # The traceback module, not sys.__excepthook__: before 3.13 the latter reads source lines
        # from a file of that name only, the former from linecache, which holds the script's.
        import traceback as printer

        printer.print_exception(kind, error.with_traceback(traceback), traceback)

    with open(script, "rb") as source_file:
        source = source_file.read()
    text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0], "replace")
    # An entry without a modification time: linecache keeps it and never looks for a file.
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)

    main_globals = sys.modules["__main__"].__dict__
    builtins = main_globals["__builtins__"]
    main_globals.clear()
    main_globals.update(
        {
            "__name__": "__main__",
            "__doc__": None,
            "__package__": None,
            "__spec__": None,
            "__file__": script,
            "__cached__": None,
            "__loader__": SourceFileLoader("__main__", script),
            "__builtins__": builtins,
        }
    )
    sys.argv = [script]
    sys.excepthook = report_uncaught
    # A SyntaxError raised here is reported as Python reports one in a script: no traceback, the
    # file (NAME), the line and the caret.
    code = compile(source, name, "exec", dont_inherit=True)
    exec(code, main_globals)


main()
