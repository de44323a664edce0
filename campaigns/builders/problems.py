"""A HIT builder's refusal, told with names (issue 17 item 1: errors name systems and settings
by name, never by internal id, and say how to fix them).

The builders are pure (no Django) and work with ids: they raise :class:`BuildProblem`, a
ValueError whose text is a template with ``{systems}``, ``{segments}`` and ``{outputs}``
fields and whose attributes keep the ids. ``str()`` fills the fields with the ids (for the
builders' own tests and logs); :meth:`BuildProblem.explain` fills them with the campaign's
system names and the documents' and segments' ids from the imported file, which is what
``campaigns.actions.build_hits`` shows the requester.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from campaigns.models import Campaign

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

    def explain(self, campaign: Campaign) -> str:
        """The message with names: systems by name, segments as the imported file's ids
        (``segment "3" of document "news-1"``), outputs as system and segment. At most
        ``LISTED`` of each list (the first by id) and how many more; three queries."""
        from campaigns.models import Output, Segment, System

        systems = dict(
            System.objects.filter(campaign=campaign, pk__in=self.ids_of("systems")).values_list(
                "pk", "name"
            )
        )
        segment_rows = Segment.objects.filter(
            campaign=campaign, pk__in=self.ids_of("segments")
        ).values_list("pk", "external_id", "document__external_id")
        segments = {pk: _segment(seg, doc) for pk, seg, doc in segment_rows}
        output_rows = Output.objects.filter(
            segment__campaign=campaign, pk__in=self.ids_of("outputs")
        ).values_list(
            "pk", "system__name", "segment__external_id", "segment__document__external_id"
        )
        outputs = {
            pk: f'the output of "{system}" for {_segment(seg, doc)}'
            for pk, system, seg, doc in output_rows
        }

        def system(pk: int) -> str:
            name = f'"{systems.get(pk, pk)}"'
            return f"{name} ({self.counts[pk]})" if pk in self.counts else name

        namers = {
            "systems": system,
            "segments": lambda pk: segments.get(pk, str(pk)),
            "outputs": lambda pk: outputs.get(pk, str(pk)),
        }
        text = self.template.format(
            **{field: _listed(ids, namers[what]) for field, (what, ids) in self.lists.items()}
        )
        return text[:1].upper() + text[1:]


def _ids(ids: tuple[int, ...]) -> str:
    return str(list(ids[:LISTED]))


def _segment(segment_id: str, document_id: str) -> str:
    return f'segment "{segment_id}" of document "{document_id}"'


def _listed(ids: tuple[int, ...], name: Any) -> str:
    named = [name(pk) for pk in ids[:LISTED]]
    if len(ids) > LISTED:
        return ", ".join(named) + f" and {len(ids) - LISTED} more"
    if len(named) > 1:
        return ", ".join(named[:-1]) + " and " + named[-1]
    return "".join(named)
