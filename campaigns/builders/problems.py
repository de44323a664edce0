"""A HIT builder's refusal, told with names (issue 17 item 1: errors name systems and settings
by name, never by internal id, and say how to fix them).

The builders are pure (no Django) and work with ids: they raise :class:`BuildProblem`, a
ValueError whose text is a template with ``{systems}``, ``{segments}`` and ``{outputs}``
fields and whose attributes keep the ids. ``str()`` fills the fields with the ids (for the
builders' own tests and logs); :meth:`BuildProblem.told` fills them with names, which
``campaigns.actions.explain`` loads (the campaign's system names, the documents' and segments'
ids from the imported file) for what ``campaigns.actions.build_hits`` tells the requester.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["LISTED", "BuildProblem"]

# How many systems, segments or outputs a message names before "and N more".
LISTED = 10


class BuildProblem(ValueError):
    """Why HITs cannot be built, and what to do.

    ``template`` names its lists as format fields: ``{systems}``, ``{segments}`` and
    ``{outputs}`` (the ids given by the keyword arguments of those names), or any other field
    given in ``lists`` as ``name: (what, ids)`` with ``what`` one of "systems", "segments",
    "outputs" (for messages with several lists of one sort). ``counts`` (by system id) adds
    each named system's count in brackets, e.g. ``"Lindenbaum-NMT" (12)``."""

    def __init__(
        self,
        template: str,
        *,
        systems: Iterable[int] = (),
        segments: Iterable[int] = (),
        outputs: Iterable[int] = (),
        lists: Mapping[str, tuple[str, Iterable[int]]] | None = None,
        counts: Mapping[int, int] | None = None,
    ) -> None:
        self.template = template
        self.lists: dict[str, tuple[str, tuple[int, ...]]] = {
            "systems": ("systems", tuple(sorted(set(systems)))),
            "segments": ("segments", tuple(sorted(set(segments)))),
            "outputs": ("outputs", tuple(sorted(set(outputs)))),
        }
        for field, (what, ids) in (lists or {}).items():
            self.lists[field] = (what, tuple(sorted(set(ids))))
        self.counts = dict(counts or {})
        super().__init__(template.format(**{f: _ids(ids) for f, (_, ids) in self.lists.items()}))

    def ids_of(self, what: str) -> set[int]:
        """Every id of one sort ("systems", "segments", "outputs") the message lists."""
        return {pk for sort, ids in self.lists.values() if sort == what for pk in ids[:LISTED]}

    def told(self, names: Mapping[str, Mapping[int, str]]) -> str:
        """The message with names: ``names["systems"]`` maps system ids to names,
        ``names["segments"]`` and ``names["outputs"]`` ids to descriptions (an id without one
        stays an id). At most ``LISTED`` of each list, and how many more; the counts in
        brackets after systems; the first letter in capitals."""

        def system(pk: int) -> str:
            name = f'"{names.get("systems", {}).get(pk, pk)}"'
            return f"{name} ({self.counts[pk]})" if pk in self.counts else name

        def described(what: str):
            return lambda pk: names.get(what, {}).get(pk, str(pk))

        namers = {
            "systems": system,
            "segments": described("segments"),
            "outputs": described("outputs"),
        }
        text = self.template.format(
            **{field: _listed(ids, namers[what]) for field, (what, ids) in self.lists.items()}
        )
        return text[:1].upper() + text[1:]


def _ids(ids: tuple[int, ...]) -> str:
    return str(list(ids[:LISTED]))


def _listed(ids: tuple[int, ...], name: Any) -> str:
    named = [name(pk) for pk in ids[:LISTED]]
    if len(ids) > LISTED:
        return ", ".join(named) + f" and {len(ids) - LISTED} more"
    if len(named) > 1:
        return ", ".join(named[:-1]) + " and " + named[-1]
    return "".join(named)
