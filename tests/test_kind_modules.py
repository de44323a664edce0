"""A task kind is a module (issue 10, docs/task-kinds.md): outside the kind modules no code
compares a campaign's kind, or a HIT's task, with a particular one, and no kind goes live
half-built.

The scan reads every .py and .html file of the apps and of evalsite, except the kind
modules themselves (anything under a ``kinds/`` directory), migrations, the demo command,
tests and benchmarks, and reports each

- ``TaskKind.<MEMBER>`` or ``HitTask.<MEMBER>`` (not ``TaskKind.choices`` or ``.values``);
- string literal equal to a TaskKind value (``"ranking"``) compared with something
  (``==``, ``!=``, ``in``, ``case``), used as a key of a mapping, or given to
  ``TaskKind(...)``;
- string literal equal to a HitTask value (``"rank"``) compared with a task or kind
  (``hit.task == "rank"``), or as a key of a mapping keyed by tasks (two keys or more are
  task values), or given to ``HitTask(...)``. A lone ``"rank"`` key is a judgment's rank,
  not a task;
- either given as a kind or task argument: ``filter(kind="ranking")``,
  ``Hit(task="rank")``, ``filter(hit__task__in=("rank", "assess"))``.

Python is read with ``ast`` (code only: comments and docstrings may name a kind), templates
with regular expressions over their tags and inline scripts. The kind values come from the
enums, not from a list here.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pytest

from campaigns.models import HitTask, TaskKind
from evalsite.kinds import TASK_KINDS

PROJECT = Path(__file__).resolve().parents[1]
SCANNED_DIRECTORIES = ("campaigns", "judgments", "analytics", "evalsite")
SCANNED_SUFFIXES = (".py", ".html")
# Where comparing with a particular kind is the point, or is allowed (issue 10).
EXCLUDED_FILES = {"campaigns/management/commands/demo.py"}
EXCLUDED_DIRECTORIES = {"kinds", "migrations", "tests", "bench"}
ENUMS = {"TaskKind": TaskKind, "HitTask": HitTask}
KIND_VALUES = frozenset(TaskKind.values)
TASK_VALUES = frozenset(HitTask.values)


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    column: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def is_scanned(path: str) -> bool:
    """Whether the scan reads ``path`` (relative to the project, with forward slashes)."""
    parts = PurePosixPath(path).parts
    return (
        len(parts) > 1
        and parts[0] in SCANNED_DIRECTORIES
        and path.endswith(SCANNED_SUFFIXES)
        and path not in EXCLUDED_FILES
        and not EXCLUDED_DIRECTORIES.intersection(parts[:-1])
    )


def find_kind_comparisons(paths: Iterable[str], read: Callable[[str], str | None]) -> list[Finding]:
    """Every comparison with a particular kind or task in the scanned files among ``paths``;
    ``read(path)`` gives a file's text (None: skip it). For the working tree, or a commit."""
    findings: list[Finding] = []
    for path in sorted(p for p in paths if is_scanned(p)):
        text = read(path)
        if text is None:
            continue
        if path.endswith(".py"):
            findings.extend(_python_findings(path, text))
        else:
            findings.extend(_template_findings(path, text))
    return sorted(findings)


# --- Python --------------------------------------------------------------------------------


def _python_findings(path: str, text: str) -> list[Finding]:
    tree = ast.parse(text, filename=path)
    # Names the enums are imported under ("from campaigns.models import TaskKind as Kind").
    enum_names = {name: name for name in ENUMS}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in ENUMS and alias.asname:
                    enum_names[alias.asname] = alias.name
    findings: list[Finding] = []

    def add(node: ast.AST, what: str) -> None:
        findings.append(Finding(path, node.lineno, node.col_offset, what))

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            enum = _enum_of(node.value, enum_names)
            if enum is not None and node.attr in ENUMS[enum].names:
                add(node, f"{enum}.{node.attr}")
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for operand in operands:
                others = [o for o in operands if o is not operand]
                for value in _strings(operand):
                    if value in KIND_VALUES or (
                        value in TASK_VALUES and any(_names_task(o) for o in others)
                    ):
                        add(operand, f"compared with {value!r}")
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if _is_string(k)]
            task_keys = sum(key in TASK_VALUES for key in keys)
            for key in node.keys:
                if not _is_string(key):
                    continue
                if key.value in KIND_VALUES or (key.value in TASK_VALUES and task_keys > 1):
                    add(key, f"mapping keyed by {key.value!r}")
        elif isinstance(node, ast.MatchValue) and _is_string(node.value):
            if node.value.value in KIND_VALUES | TASK_VALUES:
                add(node, f"case {node.value.value!r}")
        elif isinstance(node, ast.Call):
            enum = _enum_of(node.func, enum_names)
            if enum is not None:
                for arg in node.args:
                    if _is_string(arg) and arg.value in ENUMS[enum].values:
                        add(arg, f"{enum}({arg.value!r})")
            # A query or a row of a particular kind: filter(kind="ranking"), task="rank".
            for keyword in node.keywords:
                if keyword.arg is None or not _is_kind_or_task(keyword.arg):
                    continue
                for value in _strings(keyword.value):
                    if value in KIND_VALUES | TASK_VALUES:
                        add(keyword.value, f"{keyword.arg}={value!r}")
    return findings


def _enum_of(node: ast.AST, enum_names: dict[str, str]) -> str | None:
    """ "TaskKind" for ``TaskKind`` or ``models.TaskKind``, else None."""
    if isinstance(node, ast.Name):
        return enum_names.get(node.id)
    if isinstance(node, ast.Attribute) and node.attr in ENUMS:
        return node.attr
    return None


def _is_string(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _strings(node: ast.AST) -> list[str]:
    """The string constants a comparison operand is, or holds (``kind in ("a", "b")``)."""
    if _is_string(node):
        return [node.value]  # type: ignore[attr-defined]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [element.value for element in node.elts if _is_string(element)]
    return []


def _names_task(node: ast.AST) -> bool:
    """Whether an expression reads a kind or a task: ``hit.task``, ``kind``, ``t.kind``."""
    if isinstance(node, ast.Name):
        return _is_kind_or_task(node.id)
    if isinstance(node, ast.Attribute):
        return _is_kind_or_task(node.attr)
    return False


def _is_kind_or_task(name: str) -> bool:
    """``kind``, ``task``, ``hit__task__in``, ``task_kind``: names of a kind or a task."""
    return "task" in name.lower() or "kind" in name.lower()


# --- Templates -----------------------------------------------------------------------------

_COMPARE = r"(?:===|!==|==|!=)"
# An expression reading a kind or a task: campaign.kind, sample.kind, hit.task, task_kind.
_KIND_OR_TASK = r"[\w.]*(?:kind|task)[\w.]*"


def _template_patterns() -> tuple[re.Pattern[str], ...]:
    def alternatives(values: Iterable[str]) -> str:
        return "|".join(sorted(map(re.escape, values), key=len, reverse=True))

    kinds, tasks = alternatives(KIND_VALUES), alternatives(TASK_VALUES)
    members = "|".join(rf"{name}\.(?:{'|'.join(enum.names)})" for name, enum in ENUMS.items())
    return (
        # Django tags and inline scripts: kind == "ranking", 'ranking' !== kind
        re.compile(rf"""{_COMPARE}\s*["']({kinds})["']"""),
        re.compile(rf"""["']({kinds})["']\s*{_COMPARE}"""),
        # {% if kind in "ranking direct_assessment" %}, kind in ['ranking']
        re.compile(rf"""\bin\s*[\[(]?\s*["'](?:[^"']*\s)?({kinds})(?:\s[^"']*)?["']"""),
        # a mapping keyed by kind in an inline script: {"ranking": ..., direct_assessment: ...}
        re.compile(rf"""[{{,]\s*["']?({kinds})["']?\s*:"""),
        # a task compared with a task or a kind: hit.task == "rank", "assess" != sample.kind
        re.compile(rf"""{_KIND_OR_TASK}\s*{_COMPARE}\s*["']({tasks})["']"""),
        re.compile(rf"""["']({tasks})["']\s*{_COMPARE}\s*{_KIND_OR_TASK}"""),
        re.compile(rf"""{_KIND_OR_TASK}\s+in\s*[\[(]?\s*["'](?:[^"']*\s)?({tasks})\b"""),
        # TaskKind.RANKING spelt out in a template (a comment, or a string for a script)
        re.compile(rf"\b(?:{members})\b"),
    )


def _template_findings(path: str, text: str) -> list[Finding]:
    patterns = _template_patterns()
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern in patterns:
            for match in pattern.finditer(line):
                findings.append(
                    Finding(path, number, match.start(), f"template: {match.group(0).strip()}")
                )
    return findings


# --- The tests -----------------------------------------------------------------------------


def working_tree_files() -> list[str]:
    return [
        path.relative_to(PROJECT).as_posix()
        for directory in SCANNED_DIRECTORIES
        for path in (PROJECT / directory).rglob("*")
        if path.is_file()
    ]


def read_working_tree(path: str) -> str:
    return (PROJECT / path).read_text(encoding="utf-8")


def test_no_code_outside_the_kind_modules_compares_with_a_particular_kind():
    findings = find_kind_comparisons(working_tree_files(), read_working_tree)
    assert not findings, (
        f"{len(findings)} comparisons with a particular task kind outside the kind modules "
        "(move the code into <app>/kinds/<kind> and ask the app's registry; "
        "docs/task-kinds.md):\n" + "\n".join(map(str, findings))
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("if campaign.kind == TaskKind.RANKING:\n    pass\n", ["TaskKind.RANKING"]),
        ("task = models.HitTask.ASSESS\n", ["HitTask.ASSESS"]),
        (
            "from campaigns.models import TaskKind as K\nx = K.TRANSLATION\n",
            ["TaskKind.TRANSLATION"],
        ),
        ("if kind != 'direct_assessment':\n    pass\n", ["compared with 'direct_assessment'"]),
        (
            "ok = kind in ('ranking', 'translation')\n",
            ["compared with 'ranking'", "compared with 'translation'"],
        ),
        ("if hit.task == 'rank':\n    pass\n", ["compared with 'rank'"]),
        ("LABELS = {'ranking': 'Ranking'}\n", ["mapping keyed by 'ranking'"]),
        (
            "T = {'rank': 1, 'assess': 2}\n",
            ["mapping keyed by 'assess'", "mapping keyed by 'rank'"],
        ),
        ("match kind:\n    case 'ranking':\n        pass\n", ["case 'ranking'"]),
        ("kind = TaskKind('ranking')\n", ["TaskKind('ranking')"]),
        ("Campaign.objects.filter(kind='ranking')\n", ["kind='ranking'"]),
        ("Hit(number=1, task='assess')\n", ["task='assess'"]),
        ("qs.filter(hit__task__in=['rank'])\n", ["hit__task__in='rank'"]),
        # Not comparisons with a particular kind:
        ("choices = TaskKind.choices\nvalid = Q(kind__in=TaskKind.values)\n", []),
        ("row = {'rank': judgment.rank, 'score': judgment.score}\n", []),
        ("if order == 'rank':\n    pass\n", []),
        ("fields = ['id', 'direct_assessment', 'ranking']\n", []),
        ("# compares campaign.kind == TaskKind.RANKING\n'''TaskKind.RANKING'''\n", []),
        ("implementation = registry[campaign.kind]\n", []),
        ("Judgment(rank=1, text='rank')\n", []),
    ],
)
def test_the_scan_finds_comparisons_in_python(source, expected):
    findings = find_kind_comparisons(["campaigns/example.py"], lambda path: source)
    assert sorted(finding.what for finding in findings) == sorted(expected)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('{% if campaign.kind == "ranking" %}', True),
        ("{% elif hit.task != 'assess' %}", True),
        ('if (kind === "direct_assessment") {', True),
        ('{% if campaign.kind in "ranking direct_assessment" %}', True),
        ("const labels = {ranking: 'Rank', direct_assessment: 'Score'};", True),
        ('{% if sample.kind == "rank" %}', True),
        ("{% if 'rank' == hit.task %}", True),
        ('{% include "judgments/rank.html" %}', False),
        ('{% if order == "rank" %}', False),
        ('<input name="rank" value="{{ slot.rank }}">', False),
        ("{% for kind in kinds %}{{ kind.label }}{% endfor %}", False),
    ],
)
def test_the_scan_finds_comparisons_in_templates(source, found):
    findings = find_kind_comparisons(["judgments/templates/x.html"], lambda path: source)
    assert bool(findings) is found, findings


@pytest.mark.parametrize(
    ("path", "scanned"),
    [
        ("campaigns/admin/campaign.py", True),
        ("judgments/templates/judgments/task_base.html", True),
        ("evalsite/kinds.py", True),
        ("campaigns/kinds/ranking/kind.py", False),
        ("analytics/kinds/direct_assessment/results.py", False),
        ("judgments/templates/judgments/kinds/rank.html", False),
        ("campaigns/migrations/0008_kind_settings.py", False),
        ("campaigns/management/commands/demo.py", False),
        ("campaigns/static/campaigns/admin.js", False),
        ("tests/campaigns/test_models.py", False),
        ("bench/da_stats.py", False),
    ],
)
def test_the_scan_reads_the_apps_outside_their_kind_modules(path, scanned):
    assert is_scanned(path) is scanned


def _registry(app: str):
    try:
        module = importlib.import_module(f"{app}.kinds")
    except ModuleNotFoundError as error:
        pytest.fail(f"{app}.kinds, the {app} app's registry of task kinds, is missing: {error}")
    return module.registry


def test_task_kinds_are_the_task_kind_values():
    assert set(TASK_KINDS) <= set(TaskKind.values)
    assert len(set(TASK_KINDS)) == len(TASK_KINDS)


@pytest.mark.parametrize("app", ["campaigns", "judgments", "analytics"])
def test_every_registered_kind_is_on_the_registration_line(app):
    registered = [str(implementation.kind) for implementation in _registry(app)]
    assert registered, f"{app} registers no kind"
    assert set(registered) <= set(TASK_KINDS), sorted(set(registered) - set(TASK_KINDS))


def test_a_kind_that_builds_hits_has_its_judgments_and_analytics_modules():
    """A kind whose HITs can be built is live: workers get its pages and its judgments are
    computed, so it needs its modules in every app (a half-built kind cannot go live)."""
    judgments, analytics = _registry("judgments"), _registry("analytics")
    live = [str(k.kind) for k in _registry("campaigns") if k.builds_hits]
    assert live
    missing = [
        f"{kind}: no {app} module ({registry.module.format(name=kind)})"
        for kind in live
        for app, registry in (("judgments", judgments), ("analytics", analytics))
        if registry.get(kind) is None
    ]
    assert not missing, "\n".join(missing)
