"""A ranking campaign's gold units as its build takes them, and, when they fall short, why.

:func:`gold_supply` is the one place that reads a campaign's gold: the build
(:meth:`campaigns.kinds.ranking.kind.Ranking.build_hits`) takes its units, and refuses with its
``problem``; the campaign page's checklist (:mod:`campaigns.kinds.ranking.checklist`) shows
the same ``problem`` before a build is tried, so the checklist never says "done" for gold the
build then refuses. The units come from the requester's gold answers when there are any
(:func:`campaigns.gold.gold_units_from_marks`), otherwise from the segments' alternative
references when the gold best system is chosen (:func:`campaigns.gold.choose_gold_units`,
002 section 4.2), otherwise there are none. When none can be chosen, the problem names the
actual cause: no gold answers and no best system; no segment with an alternative reference
(``reference_2``, ... in the segment file); no output of the best (or worst) system there; no
alternative reference closer to the main reference than the best system's output; a missing
worst system or worst output in the best-and-worst scheme; too few units for the
qualification test.

Fewer gold units than the gold rate's gold sets is not an error: the builder shows each unit
in several gold sets (:mod:`campaigns.builders.ranking`); :func:`gold_sets_needed` says how many
sets the rate asks for, computed by the builder's own :func:`ranking_counts`, and the checklist
says how often each unit is then shown.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import Count

import campaigns.degradation
import campaigns.gold
from campaigns.builders.ranking import RankingOutput, ranking_counts
from campaigns.gold import (
    ORIGIN_ALTERNATIVE_REFERENCE,
    ORIGIN_REQUESTER,
    GoldMark,
    GoldUnit,
    SegmentReferences,
    choose_gold_units,
    gold_units_from_marks,
)
from campaigns.kinds.ranking.models import GoldScheme, RankingSettings
from campaigns.models import Campaign, GoldAnswer, Output, Segment
from evalsite.cachesafe import cache_get, cache_set

__all__ = ["GoldSupply", "gold_sets_needed", "gold_supply", "outputs_per_segment"]

# How many segments a message names before "and N more".
LISTED = 10

# How long the automatic choice's results are kept (_chosen).
CHOICE_SECONDS = 7 * 24 * 3600

GIVE_ANSWERS = "give gold answers per segment (Gold answers: add them, or import a file of them)"


@dataclass(frozen=True)
class GoldSupply:
    """The gold units a build of the campaign takes now.

    ``units``: every usable unit, the qualification test's included; ``origin``: where they
    come from (:data:`campaigns.gold.ORIGIN_REQUESTER` for gold answers,
    :data:`~campaigns.gold.ORIGIN_ALTERNATIVE_REFERENCE` for the automatic choice, "" for
    none); ``answers``: the gold answers given; ``needed``: whether the build needs gold at
    all (a gold rate above 0, or a qualification test); ``problem``: why the build cannot go
    on, told as its error ("" when it can)."""

    units: tuple[GoldUnit, ...]
    origin: str
    answers: int
    needed: bool
    problem: str = ""


def gold_supply(campaign: Campaign, settings: RankingSettings) -> GoldSupply:
    """What :meth:`Ranking.build_hits` takes for gold, or why it cannot; a fixed number of
    queries whatever the campaign's size (the automatic choice reads only the segments with
    an alternative reference, and only the best and worst systems' outputs of them)."""
    rate = settings.gold_rate
    training = settings.qualification_sets if campaign.qualification_required else 0
    needed = rate > 0 or training > 0
    marks = list(
        GoldAnswer.objects.filter(segment__campaign=campaign)
        .order_by("segment_id")
        .values_list(
            "segment_id",
            "best_output_id",
            "gold_text",
            "worst_output_id",
            "best_output__system_id",
            "best_output__segment_id",
            "best_output__text",
            "worst_output__system_id",
            "worst_output__segment_id",
            "worst_output__text",
            "segment__external_id",
            "segment__document__external_id",
        )
    )
    if not needed:
        return GoldSupply((), "", len(marks), needed)
    ask = _Ask(
        intro=(
            f"The gold rate is {rate:.0%}"
            if rate > 0
            else f"The qualification test needs {training} gold sets ('Qualification sets')"
        ),
        way_out=(
            *(["set the gold rate to 0"] if rate > 0 else []),
            *(["turn the qualification test off"] if training else []),
        ),
        answers=len(marks),
        training=training,
    )
    if marks:
        return _from_answers(settings, marks, ask)
    if settings.gold_best_system_id is None:
        return ask.refuse(
            f"{ask.intro} but the campaign has no gold answers and no gold best system.",
            GIVE_ANSWERS,
            "choose the gold best system in the ranking settings so that gold translations "
            "are chosen from the segments' alternative references (Paul et al. 2013)",
        )
    return _from_references(campaign, settings, ask)


@dataclass(frozen=True)
class _Ask:
    """What a refusal starts with and always offers, and what it counts."""

    intro: str  # "The gold rate is 10%", or the qualification test's need when the rate is 0
    way_out: tuple[str, ...]  # doing without gold: the rate to 0, the test off
    answers: int
    training: int

    def refuse(self, text: str, *fixes: str, origin: str = "") -> GoldSupply:
        return GoldSupply((), origin, self.answers, True, _sentence(text, [*fixes, *self.way_out]))


def _sentence(text: str, options: list[str]) -> str:
    """``text`` and what to do: "A, or B, or C." with a capital first letter."""
    advice = ", or ".join(options)
    return f"{text} {advice[:1].upper()}{advice[1:]}." if options else text


def _from_answers(settings: RankingSettings, marks: list[tuple], ask: _Ask) -> GoldSupply:
    outputs: dict[int, RankingOutput] = {}
    for row in marks:
        # (output id, system, segment, text) of the best output, then of the worst.
        for output_id, *fields in ((row[1], *row[4:7]), (row[3], *row[7:10])):
            if output_id is not None:
                outputs[output_id] = RankingOutput(output_id, *fields)
    try:
        units = gold_units_from_marks(
            [
                GoldMark(
                    segment_id=row[0],
                    best_output_id=row[1],
                    gold_text=row[2] or None,
                    worst_output_id=row[3],
                )
                for row in marks
            ],
            outputs.values(),
        )
    except ValueError as error:
        return ask.refuse(f"Gold answers: {error}.", "correct them under Gold answers")
    if settings.gold_scheme == GoldScheme.BEST_WORST:
        lacking = [_segment_words(row[10], row[11]) for row in marks if row[3] is None]
        if lacking:
            return ask.refuse(
                f"{ask.intro} with the best-and-worst gold scheme, and {len(lacking)} of the "
                f"{len(marks)} gold answers give no worst output: {_listed(lacking)}.",
                "give each its worst output (Gold answers)",
                "choose the best-only gold scheme in the ranking settings",
                origin=ORIGIN_REQUESTER,
            )
    return _enough(tuple(units), ORIGIN_REQUESTER, settings, ask)


def _from_references(campaign: Campaign, settings: RankingSettings, ask: _Ask) -> GoldSupply:
    best_id, worst_id = settings.gold_best_system_id, settings.gold_worst_system_id
    best = settings.gold_best_system.name
    worst = settings.gold_worst_system.name if worst_id is not None else ""
    origin = ORIGIN_ALTERNATIVE_REFERENCE
    if worst_id == best_id:
        return ask.refuse(
            f'{ask.intro}, and "{best}" is both the gold best and the gold worst system.',
            "choose two different systems in the ranking settings",
            origin=origin,
        )
    require_worst = settings.gold_scheme == GoldScheme.BEST_WORST
    if require_worst and worst_id is None:
        return ask.refuse(
            f"{ask.intro} with the best-and-worst gold scheme, whose gold sets show a known-worst "
            "output, and no gold worst system is chosen for the gold translations chosen from "
            "alternative references.",
            "choose the gold worst system in the ranking settings",
            "choose the best-only gold scheme",
            GIVE_ANSWERS,
            origin=origin,
        )
    # Only segments with an alternative reference (references[1]) can give a gold
    # translation, and only the best and worst systems' outputs take part in the choice
    # (campaigns.gold.gold_candidates): the rest need not be read.
    with_alternatives = Segment.objects.filter(campaign=campaign, references__1__isnull=False)
    segments = [
        SegmentReferences(segment_id=pk, references=references)
        for pk, references in with_alternatives.order_by("pk").values_list("pk", "references")
    ]
    systems = [best_id] if worst_id is None else [best_id, worst_id]
    outputs = [
        RankingOutput(output_id=pk, system_id=system, segment_id=seg, text=text)
        for pk, system, seg, text in Output.objects.filter(
            segment__in=with_alternatives, system_id__in=systems
        )
        .order_by("pk")
        .values_list("pk", "system_id", "segment_id", "text")
    ]
    if not segments:
        total = Segment.objects.filter(campaign=campaign).count()
        return ask.refuse(
            f"{ask.intro} and gold translations are to be chosen from alternative references (gold "
            f'best system "{best}"), but none of the campaign\'s {_plural(total, "segment")} '
            "has an alternative reference: each has only its main reference (alternative "
            "references are the reference_2, ... columns of a segment file).",
            GIVE_ANSWERS,
            origin=origin,
        )
    with_best = {o.segment_id for o in outputs if o.system_id == best_id}
    if not with_best:
        return ask.refuse(
            f"{ask.intro} and gold translations are to be chosen from alternative references, but "
            f'the gold best system "{best}" has no output for any of the '
            f"{_plural(len(segments), 'segment')} with an alternative reference, so nothing "
            "says a gold translation is better.",
            "choose a gold best system that translated them",
            GIVE_ANSWERS,
            origin=origin,
        )
    language = campaign.target_language
    units = _chosen(
        segments,
        outputs,
        language=language,
        count=settings.gold_count,
        best_system_id=best_id,
        worst_system_id=worst_id,
        require_worst=require_worst,
    )
    if not units:
        # Without the worst system's outputs, which candidates would there be?
        eligible = (
            _chosen(
                segments, outputs, language=language, count=len(segments), best_system_id=best_id
            )
            if require_worst
            else ()
        )
        if not eligible:
            return ask.refuse(
                f"{ask.intro} and gold translations are to be chosen from alternative references, "
                f"but in none of the {_plural(len(with_best), 'segment')} with an alternative "
                "reference and an output of the gold best system is an alternative reference "
                f'closer to the main reference than the output of "{best}", so none is known '
                "to be better than it (Paul et al. 2013).",
                GIVE_ANSWERS,
                origin=origin,
            )
        return ask.refuse(
            f"{ask.intro} with the best-and-worst gold scheme, and the gold worst system "
            f'"{worst}" has no output for any of the {_plural(len(eligible), "segment")} '
            "whose alternative reference could be gold, so no gold set can show a known-worst "
            "output.",
            "choose a gold worst system that translated them",
            "choose the best-only gold scheme",
            GIVE_ANSWERS,
            origin=origin,
        )
    return _enough(tuple(units), origin, settings, ask)


def _chosen(
    segments: list[SegmentReferences], outputs: list[RankingOutput], **options: Any
) -> tuple[GoldUnit, ...]:
    """:func:`choose_gold_units`, remembered in the cache under a digest of everything it
    reads: its edit distances take seconds on thousands of segments with alternative
    references, and the campaign page's checklist asks on every view. Any change of a
    reference, an output or a setting it takes is another digest, so a remembered choice is
    always the one the function would make now."""
    digest = hashlib.sha256(
        repr((_choice_code(), segments, outputs, sorted(options.items()))).encode()
    ).hexdigest()
    key = f"ranking-gold-choice:{digest}"
    units = cache_get(key)
    if units is None:
        units = tuple(choose_gold_units(segments, outputs, **options))
        cache_set(key, units, CHOICE_SECONDS)
    return units


@functools.cache
def _choice_code() -> str:
    """A digest of the code that chooses (campaigns.gold, and the word splitting it uses from
    campaigns.degradation): a remembered choice of older code is never taken."""
    digest = hashlib.sha256()
    for module in (campaigns.gold, campaigns.degradation):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()


def _enough(
    units: tuple[GoldUnit, ...], origin: str, settings: RankingSettings, ask: _Ask
) -> GoldSupply:
    """The units, or the qualification test's refusal when they are too few for it (the
    test takes its own units, and the gold sets need at least one more)."""
    rate_needs = int(settings.gold_rate > 0)
    if ask.training and len(units) < ask.training + rate_needs:
        where = (
            "gold answers"
            if origin == ORIGIN_REQUESTER
            else "gold translations chosen from alternative references"
        )
        more = " plus at least one for the gold sets" if rate_needs else ""
        fixes = [
            "add gold answers",
            "lower 'Qualification sets'",
            "turn the qualification test off",
        ]
        if origin == ORIGIN_ALTERNATIVE_REFERENCE and len(units) == settings.gold_count:
            fixes.insert(1, "raise 'Gold count'")
        text = (
            f"The qualification test needs {ask.training} gold sets of its own ('Qualification "
            f"sets'){more}, and the campaign has {len(units)} {where}."
        )
        return GoldSupply(units, origin, ask.answers, True, _sentence(text, fixes))
    return GoldSupply(units, origin, ask.answers, True)


def outputs_per_segment(campaign: Campaign) -> list[int]:
    """Each segment's number of outputs (segments without outputs left out): one query."""
    return list(
        Output.objects.filter(segment__campaign=campaign)
        .order_by()
        .values("segment")
        .annotate(n=Count("pk"))
        .values_list("n", flat=True)
    )


def gold_sets_needed(settings: RankingSettings, counts: list[int]) -> int:
    """The gold sets the build makes at the gold rate, for segments with ``counts`` outputs
    (:func:`outputs_per_segment`): the builder's own count (:func:`ranking_counts`)."""
    if not counts or settings.gold_rate <= 0:
        return 0
    return ranking_counts(
        counts,
        outputs_per_set=settings.outputs_per_set,
        sets_per_hit=settings.sets_per_hit,
        gold_rate=settings.gold_rate,
    ).gold_sets


def _segment_words(segment_id: str, document_id: str) -> str:
    return f'segment "{segment_id}" of document "{document_id}"'


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:LISTED])
    rest = len(items) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
