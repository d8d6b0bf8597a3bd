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
    import sys

    runner = __file__
    # The class of the runner's own loader: importing importlib.machinery for it costs a run ~0.7 ms.
    SourceFileLoader = type(__loader__)
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

    def give_lines(linecache):
        import io
        import tokenize  # Imported by linecache already.

        text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0], "replace")
        # An entry without a modification time: linecache keeps it and never looks for a file.
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)

    class LinesOnImport:
        """Gives linecache the script's lines as it is first imported (by a traceback, a warning,
        the script): importing it here would import tokenize and re, ~6 ms of every run's start.
        A meta path finder, first on sys.meta_path until then: it finds linecache as the others
        would, and wraps its loader only to give the lines once the module has run."""

        def find_spec(self, fullname, path=None, target=None):
            if fullname != "linecache":
                return None
            for finder in [finder for finder in sys.meta_path if finder is not self]:
                spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
                if spec is not None and spec.loader is not None:
                    sys.meta_path.remove(self)
                    # Duck-typed: subclassing importlib.abc.Loader would cost an import.
                    spec.loader = LinesAfterLoading(spec.loader)  # pyright: ignore[reportAttributeAccessIssue]
                    return spec
            return None

    class LinesAfterLoading:
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            self.loader.exec_module(module)
            # The module keeps the loader that really loaded it.
            module.__loader__ = module.__spec__.loader = self.loader
            give_lines(module)

    if "linecache" in sys.modules:
        give_lines(sys.modules["linecache"])  # A site hook imported it already.
    else:
        sys.meta_path.insert(0, LinesOnImport())

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
