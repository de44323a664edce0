"""Ranking on the worker's side (002 sections 3.4 and 4.4): a page of ranking sets, each one
segment's source, reference and N outputs, which the worker ranks from 1 (best) to N, ties
allowed; one answer per set, saved per set, no way back.

The page is ``judgments/rank.html`` with ``static/js/rank.js``; its words are in the
catalogs under ``locale/`` (context "ranking page"), English only so far: the page is shown in
another language once a catalog translates them. The qualification test is a ranking HIT
like the others (``Hit.is_qualification``); the page then says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import npgettext, pgettext, pgettext_lazy

from campaigns.models import Campaign, HitTask, TaskKind
from judgments.actions.constants import MAX_STORED_INT
from judgments.actions.specs import (
    ShownUnit,
    SubmissionError,
    TaskSpec,
    Unit,
    group_units,
    json_kind,
)
from judgments.actions.state import TaskState
from judgments.kinds import JudgmentKind, TaskPage, registry

# --- The answer -------------------------------------------------------------------------------

# A position as a JSON object key: digits without a leading zero, so that "1" and "01" can
# never both name the same output.
_POSITION_KEY = re.compile(r"[1-9][0-9]{0,8}")


RANKS_EXAMPLE = '{"1": 2, "2": 1}'


def _parse_ranks(payload: Mapping[str, Any]) -> dict[int, int]:
    """``ranks``: {"<position>": <rank>} for every output of the set; ranks are whole numbers
    from 1 (best); ties allowed. The upper bound (the set's size) is checked against the set."""
    value = payload.get("ranks")
    if value is None:
        raise SubmissionError(
            pgettext("ranking answer", "ranks is required: give every output of the set a rank."),
            field="ranks",
        )
    if not isinstance(value, dict):
        raise SubmissionError(
            pgettext(
                "ranking answer",
                "ranks must be an object that gives each output's position its rank, for "
                "example {example} (got {value}).",
            ).format(example=RANKS_EXAMPLE, value=json_kind(value)),
            field="ranks",
        )
    ranks: dict[int, int] = {}
    for key, rank in value.items():
        if not _POSITION_KEY.fullmatch(key):
            raise SubmissionError(
                pgettext(
                    "ranking answer",
                    "ranks must give each output's position its rank, for example {example}; "
                    '"{key}" is not a position.',
                ).format(example=RANKS_EXAMPLE, key=key[:40]),
                field="ranks",
            )
        if type(rank) is not int or not 1 <= rank <= MAX_STORED_INT:
            raise SubmissionError(
                pgettext(
                    "ranking answer",
                    "The rank of position {position} must be a whole number of at least 1 "
                    "(got {value}).",
                ).format(position=key, value=json_kind(rank)),
                field="ranks",
            )
        ranks[int(key)] = rank
    return ranks


def _bind_ranks(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Check that ``ranks`` names exactly the set's outputs, with ranks 1..N (N = its size)."""
    ranks: dict[int, int] = answer["ranks"]
    by_position = dict((position, pk) for pk, position in unit.slots)
    outputs = ", ".join(str(position) for position in unit.positions)
    extra = sorted(set(ranks) - set(by_position))
    if extra:
        raise SubmissionError(
            pgettext(
                "ranking answer",
                "ranks names position {position}, which is not an output of set {number}; its "
                "outputs are at positions {outputs}.",
            ).format(position=extra[0], number=unit.number, outputs=outputs),
            field="ranks",
        )
    missing = [position for position in unit.positions if position not in ranks]
    if missing:
        raise SubmissionError(
            npgettext(
                "ranking answer",
                "Every output of set {number} needs a rank; missing: position {positions}.",
                "Every output of set {number} needs a rank; missing: positions {positions}.",
                len(missing),
            ).format(number=unit.number, positions=", ".join(map(str, missing))),
            field="ranks",
        )
    size = len(unit.slots)
    for position in unit.positions:
        if ranks[position] > size:
            raise SubmissionError(
                pgettext(
                    "ranking answer",
                    "The rank of position {position} must be from 1 to {size}, the number of "
                    "outputs in set {number} (got {rank}).",
                ).format(position=position, size=size, number=unit.number, rank=ranks[position]),
                field="ranks",
            )
    return {by_position[position]: {"rank": ranks[position]} for position in unit.positions}


# 002 section 3.4: a ranking set is one segment's source, reference and N outputs; the worker
# ranks them 1 (best) to N, ties allowed; 3 sets per page (sets_per_hit).
RANK_SPEC = TaskSpec(
    key="set",
    key_minimum=0,
    key_what=pgettext_lazy("ranking answer", "the ranking set you answer"),
    example='{"set": 0, "ranks": {"1": 2, "2": 1}}',
    parsers={"ranks": _parse_ranks},
    units=group_units,
    bind=_bind_ranks,
    page_size=lambda campaign: max(1, campaign.ranking_settings.sets_per_hit),
    unknown_unit=lambda key, units: pgettext(
        "ranking answer", 'There is no set {key} in this task: "set" is one of {sets}.'
    ).format(key=key, sets=", ".join(str(unit.key) for unit in units)),
    answered=lambda number: pgettext(
        "ranking answer",
        "Set {number} is already answered, and answers cannot be changed (there is no going back).",
    ).format(number=number),
    continue_with=lambda number: pgettext("ranking answer", "Continue with set {number}.").format(
        number=number
    ),
    answer_first=lambda number: pgettext(
        "ranking answer", "Answer set {number} first; the sets are answered in order."
    ).format(number=number),
)


# --- What the worker's browser receives -------------------------------------------------------

# Rank buttons' letters, as the ranking page names its outputs.
OUTPUT_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def present_rank_set(unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
    """A ranking set: its group (the handle sent back), its number in the HIT, the segment's
    source and main reference, and its outputs (position and shown text only) in slot order.
    Nothing tells a gold or test set from another."""
    segment = next((slot.segment for slot in unit.slots if slot.segment), None)
    return {
        "set": unit.key,
        "number": unit.number,
        "source": segment.source if segment else "",
        "reference": segment.reference if segment else "",
        "outputs": [{"position": slot.position, "text": slot.shown_text} for slot in unit.slots],
    }


class RankPage(TaskPage):
    task = HitTask.RANK
    # 000: a five-output ranking screen takes about a minute, about 12 s an output.
    default_seconds_per_judgment = 12
    spec = RANK_SPEC
    template = "judgments/rank.html"
    preview_template = "judgments/rank_preview.html"
    preview_class = "task-rank"
    language_probe = (
        "ranking page",
        "Rank the translations of each sentence from best (1) to worst ({n}), compared with "
        "each other. Ties are allowed: give two translations the same rank when they are equally "
        "good.",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """002 section 3.4: rank "each whole sentence translation from Best to Worst relative
        to the other choices (ties are allowed)", grades 1 (best) to N, with the prompt for
        the campaign's set size."""
        # Translators: {n} is the number of translations in a set.
        prompt = pgettext(
            "ranking page",
            "Rank the translations of each sentence from best (1) to worst ({n}), compared with "
            "each other. Ties are allowed: give two translations the same rank when they are "
            "equally good.",
        )
        return {
            "prompt": prompt.format(n=campaign.ranking_settings.outputs_per_set),
            "keys": pgettext(
                "ranking page",
                "Keyboard: a number key gives the translation in focus its rank and moves on to "
                "the next translation; Tab or the up and down arrow keys move between "
                "translations (go back up to change a rank); Enter sends the ranks.",
            ),
            "source": pgettext("ranking page", "Source"),
            "reference": pgettext("ranking page", "Reference"),
            # Translators: {letter} is the translation's letter, A, B, C...
            "output": pgettext("ranking page", "Translation {letter}"),
            "rank_of": pgettext("ranking page", "Rank of translation {letter}"),
            "set": pgettext("ranking page", "Set {n} of {total}"),
            "progress_one": pgettext("ranking page", "Set {first} of {total}"),
            "progress_many": pgettext("ranking page", "Sets {first}–{last} of {total}"),
            # Translators: the progress of a task of several pages.
            "progress_one_paged": pgettext(
                "ranking page", "Set {first} of {total}, page {page} of {pages}"
            ),
            "progress_many_paged": pgettext(
                "ranking page", "Sets {first}–{last} of {total}, page {page} of {pages}"
            ),
            "saved": pgettext("ranking page", "Saved"),
            # Translators: {list} is one or more "Set {n}: {outputs}", joined by "{list}; {more}".
            "missing": pgettext("ranking page", "Still to rank: {list}"),
            # Translators: joins the sets of "Still to rank: {list}" (Chinese "{list}；{more}").
            "missing_join": pgettext("ranking page", "{list}; {more}"),
            "missing_set": pgettext("ranking page", "Set {n}: {outputs}"),
            "missing_one": pgettext("ranking page", "translation {letters}"),
            # Translators: {letters} is two or more letters, joined by "{letters}, {letter}".
            "missing_some": pgettext("ranking page", "translations {letters}"),
            # Translators: joins the letters of "translations {letters}" (Chinese
            # "{letters}、{letter}").
            "letters_join": pgettext("ranking page", "{letters}, {letter}"),
            "missing_all": pgettext("ranking page", "all translations"),
            # Translators: {list} as in "Still to rank: {list}".
            "stopped": pgettext(
                "ranking page", "Rank every translation before you continue. Still to rank: {list}"
            ),
            "next": pgettext("ranking page", "Next"),
            "submit": pgettext("ranking page", "Submit"),
            "qualification": pgettext(
                "ranking page",
                "This is a short qualification test. Rank the translations as you would in the "
                "real tasks; when you finish, you will see straight away whether you can go on "
                "to them.",
            ),
            "network_error": pgettext(
                "ranking answer",
                "Your answers could not be sent (no connection?). They are kept: press the "
                "button again to retry.",
            ),
            "network_error_reload": pgettext(
                "ranking answer",
                "Your answers could not be sent (no connection?). They are kept: reload the page "
                "to retry.",
            ),
        }

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        return present_rank_set(unit, campaign)

    def present(self, state: TaskState) -> dict[str, Any]:
        """The ranking sets on the worker's page now (see :func:`present_rank_set`), with the
        page's number and the HIT's number of pages."""
        campaign = state.assignment.campaign
        sets = [present_rank_set(unit, campaign) for unit in state.shown]
        return {"page": state.page, "pages": state.pages, "sets": sets}

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The template's view of the first ranking set: what the item endpoint would send for
        it, each output with its letter and rank buttons."""
        ranking_set = present_rank_set(unit, campaign)
        outputs = []
        for index, output in enumerate(ranking_set["outputs"]):
            letter = OUTPUT_LETTERS[index] if index < len(OUTPUT_LETTERS) else str(index + 1)
            outputs.append(
                {
                    "label": labels["output"].format(letter=letter),
                    "rank_of": labels["rank_of"].format(letter=letter),
                    "text": output["text"],
                }
            )
        return {
            "heading": labels["set"].format(n=ranking_set["number"], total=total),
            "source": ranking_set["source"],
            "reference": ranking_set["reference"],
            "outputs": outputs,
            "ranks": range(1, len(outputs) + 1),
        }


@registry.register
class Ranking(JudgmentKind):
    kind = TaskKind.RANKING
    description = pgettext_lazy(
        "entry page",
        "Rank several translations of the same sentence from best to worst (ties allowed).",
    )
    pages = (RankPage,)
