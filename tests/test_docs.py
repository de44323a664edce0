"""The README and docs/ point only at what a clone has (issue 17: the README sent readers to
../shared/papers/, a folder outside the repository)."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_docs_name_no_folder_outside_the_repository():
    for doc in DOCS:
        assert "../shared" not in doc.read_text(encoding="utf-8"), doc.name


def test_relative_links_of_the_docs_resolve_to_files_of_the_repository():
    for doc in DOCS:
        for target in LINK.findall(doc.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            path = (doc.parent / target).resolve()
            assert path.exists() and REPO_ROOT in path.parents, (doc.name, target)


def test_the_bibliography_gives_every_paper_the_code_cites():
    bibliography = (REPO_ROOT / "docs" / "bibliography.md").read_text(encoding="utf-8")
    for number in ("000", "001", "002", "003", "004"):
        assert re.search(rf"^\| {number} \| .+ \d{{4}}\. \*", bibliography, re.MULTILINE), number
