"""evalsite.deferred_imports: a deferred module's code runs once, on first use, in one thread.

Each test runs in a fresh interpreter (the finder is process-wide, as in a gunicorn worker)
on a small package written to a temporary directory, whose code counts its own runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# Runs slowly (so that threads really meet it half-run) and counts its runs in a file.
SLOW = """
import os, time
COUNT = os.path.join(os.path.dirname(__file__), "..", "runs.txt")
with open(COUNT, "a") as out:
    out.write("run\\n")
time.sleep(0.3)
from . import part  # a submodule imported by the package's own code
VALUE = 42
"""

BROKEN = """
raise RuntimeError("broken at import")
"""


def _run(tmp_path: Path, code: str) -> dict:
    package = tmp_path / "slowpkg"
    package.mkdir()
    (package / "__init__.py").write_text(SLOW)
    (package / "part.py").write_text("PART = 'part'\n")
    (tmp_path / "brokenmod.py").write_text(BROKEN)
    (tmp_path / "runs.txt").write_text("")
    prelude = (
        "import json, sys, threading\n"
        f"sys.path[:0] = [{str(tmp_path)!r}, {str(ROOT)!r}]\n"
        "from evalsite.deferred_imports import defer, is_deferred\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    seen["runs"] = (tmp_path / "runs.txt").read_text().count("run")
    return seen


def test_importing_runs_nothing_and_the_first_attribute_runs_the_module_once(tmp_path):
    seen = _run(
        tmp_path,
        """
        defer("slowpkg")
        import slowpkg
        import slowpkg as again  # a second import statement reads only __spec__
        after_imports = [is_deferred("slowpkg"), slowpkg.__name__, again is slowpkg]
        value = slowpkg.VALUE
        print(json.dumps({"after_imports": after_imports, "value": value,
                          "part": slowpkg.part.PART, "deferred": is_deferred("slowpkg")}))
        """,
    )
    assert seen["after_imports"] == [True, "slowpkg", True]
    assert seen["value"] == 42
    assert seen["part"] == "part"
    assert seen["deferred"] is False
    assert seen["runs"] == 1


def test_threads_meeting_the_first_use_wait_for_one_run(tmp_path):
    seen = _run(
        tmp_path,
        """
        defer("slowpkg")
        import slowpkg
        start = threading.Barrier(8)
        values = []
        def use():
            start.wait()
            values.append(slowpkg.VALUE)
        threads = [threading.Thread(target=use) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(json.dumps({"values": values}))
        """,
    )
    # Without the lock, threads that came while the module ran saw no VALUE yet, or ran it twice.
    assert seen["values"] == [42] * 8
    assert seen["runs"] == 1


def test_from_import_runs_the_module(tmp_path):
    seen = _run(
        tmp_path,
        """
        defer("slowpkg")
        from slowpkg import VALUE
        print(json.dumps({"value": VALUE, "deferred": is_deferred("slowpkg")}))
        """,
    )
    assert seen == {"value": 42, "deferred": False, "runs": 1}


def test_a_module_imported_before_is_left_as_it_is(tmp_path):
    seen = _run(
        tmp_path,
        """
        import slowpkg
        defer("slowpkg")
        import slowpkg
        print(json.dumps({"deferred": is_deferred("slowpkg"), "value": slowpkg.VALUE}))
        """,
    )
    assert seen == {"deferred": False, "value": 42, "runs": 1}


def test_an_error_in_the_module_reaches_the_first_user(tmp_path):
    seen = _run(
        tmp_path,
        """
        defer("brokenmod")
        import brokenmod
        try:
            brokenmod.anything
        except RuntimeError as error:
            message = str(error)
        print(json.dumps({"message": message}))
        """,
    )
    assert seen["message"] == "broken at import"


def test_modules_not_named_are_imported_as_usual(tmp_path):
    seen = _run(
        tmp_path,
        """
        defer("brokenmod")
        import slowpkg
        print(json.dumps({"deferred": is_deferred("slowpkg"), "never": is_deferred("nomod")}))
        """,
    )
    assert seen == {"deferred": False, "never": False, "runs": 1}
