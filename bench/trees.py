"""Another commit's tree for a bench to alternate with: its files as they were (``git
archive``), in a temporary directory removed when the bench exits."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit_tree(commit: str, prefix: str = "bench-baseline-") -> Path:
    """The files of ``commit`` in a new temporary directory (removed at exit)."""
    tree = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, tree, True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree
