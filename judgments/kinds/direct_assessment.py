"""Direct assessment on the worker's side (001, 2014 section 2): one item at a time, a slider
from 0 to 100 against one Likert statement, no way back.

The page (``judgments/assess.html`` with ``static/js/assess.js``) says the statement of 001:
for fluency "The text is fluent <target language>.", for adequacy that the black text
expresses the meaning of the gray text (the main reference, shown in gray), between the
scale's two anchors. Its words are in the catalogs under ``locale/`` (context "direct
assessment page"); "<target language>" is the language's name from Django's LANG_INFO,
translated by Django's own catalog into the page language (``judgments.i18n.language_name``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from analytics.models import Recommendation, WorkerStat
from campaigns.models import AssessmentMode, Campaign, HitTask, TaskKind
from judgments.actions.specs import (
    ShownUnit,
    SubmissionError,
    TaskSpec,
    bind_one_slot,
    json_kind,
    one_slot_units,
)
from judgments.actions.state import TaskState
from judgments.i18n import language_name
from judgments.kinds import JudgmentKind, TaskPage, failure_reason, registry

# --- The answer -------------------------------------------------------------------------------


def _parse_score(payload: Mapping[str, Any]) -> float:
    value = payload.get("score")
    if value is None:
        raise SubmissionError(
            pgettext(
                "direct assessment answer",
                "score is required: move the slider to give your answer.",
            ),
            field="score",
        )
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 100
    ):
        raise SubmissionError(
            pgettext(
                "direct assessment answer", "score must be a number from 0 to 100 (got {value})."
            ).format(value=json_kind(value)),
            field="score",
        )
    return float(value)


ASSESS_SPEC = TaskSpec(
    key="position",
    key_minimum=1,
    key_what=pgettext_lazy("direct assessment answer", "the number of the item you answer"),
    example='{"position": 1, "score": 50}',
    parsers={"score": _parse_score},
    units=one_slot_units,
    bind=bind_one_slot,
    page_size=lambda campaign: 1,
    slots_per_page=1,
    unknown_unit=lambda key, units: pgettext(
        "direct assessment answer", "There is no item {key} in this task; it has items 1 to {last}."
    ).format(key=key, last=len(units)),
    answered=lambda number: pgettext(
        "direct assessment answer",
        "Item {number} is already answered, and answers cannot be changed (there is no going "
        "back).",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "direct assessment answer", "Continue with item {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "direct assessment answer", "Answer item {number} first; the items are answered in order."
    ).format(number=number),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_assess_item(unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
    """A direct-assessment item: its position (the only handle), the text to judge and, for
    adequacy, the main reference shown in gray. Nothing else about the slot is read."""
    slot = unit.slots[0]
    item: dict[str, Any] = {"position": slot.position, "text": slot.shown_text}
    if campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY:
        item["gray_text"] = slot.segment.reference if slot.segment else ""
    return item


class AssessPage(TaskPage):
    task = HitTask.ASSESS
    # 001 2013 Figure 4: careful workers take about 10-30 s an item.
    default_seconds_per_judgment = 20
    spec = ASSESS_SPEC
    template = "judgments/assess.html"
    preview_template = "judgments/assess_preview.html"
    language_probe = (
        "direct assessment page",
        "Read the text below and rate how much you agree that:",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """The Likert statement of 001 for the campaign's mode, the scale's two anchors and
        the page's few words."""
        if campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY:
            statement = pgettext(
                "direct assessment page",
                "The black text adequately expresses the meaning of the gray text.",
            )
        else:
            # Translators: {language} is the target language's name as Django's catalog of
            # this language writes it ("Englisch"; Czech gives an adverb, "anglicky").
            statement = pgettext("direct assessment page", "The text is fluent {language}.")
            statement = statement.format(language=language_name(campaign.target_language))
        return {
            "prompt": pgettext(
                "direct assessment page", "Read the text below and rate how much you agree that:"
            ),
            "statement": statement,
            "low": pgettext("direct assessment page", "strongly disagree"),
            "high": pgettext("direct assessment page", "strongly agree"),
            "hint": pgettext("direct assessment page", "Move the slider to give your answer"),
            # Translators: what screen readers say for the slider's position: {value} is a
            # number from 1 to 99, {low} and {high} are the scale's two ends ("strongly
            # disagree", "strongly agree"). Write the percent as your language does ("50 %").
            "slider_value": pgettext("direct assessment page", "{value}% (0: {low}, 100: {high})"),
            "next": pgettext("direct assessment page", "Next"),
            # Translators: the number of the item on screen and the task's number of items.
            "progress": pgettext("direct assessment page", "{n} of {total}"),
            "network_error": pgettext(
                "direct assessment answer",
                "Your answer could not be sent (no connection?). It is kept: press Next again "
                "to retry.",
            ),
            "network_error_reload": pgettext(
                "direct assessment answer",
                "Your answer could not be sent (no connection?). It is kept: reload the page to "
                "retry.",
            ),
        }

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"show_gray": campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        return present_assess_item(unit, campaign)

    def present(self, state: TaskState) -> dict[str, Any]:
        """The current direct-assessment item (see :func:`present_assess_item`)."""
        return present_assess_item(state.shown[0], state.assignment.campaign)

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The template's view of the first item: what the item endpoint would send for it."""
        item = present_assess_item(unit, campaign)
        return {
            "progress": labels["progress"].format(n=1, total=total),
            "text": item["text"],
            "gray": item.get("gray_text"),  # None: a fluency item has no gray text
        }


@registry.register
class DirectAssessment(JudgmentKind):
    kind = TaskKind.DIRECT_ASSESSMENT
    description = pgettext_lazy(
        "entry page",
        "Read translations one at a time and rate each on a slider "
        "from \u201cstrongly disagree\u201d to \u201cstrongly agree\u201d.",
    )
    pages = (AssessPage,)

    def qc_failures(self, campaign: Campaign, worker_ids: Iterable[int]) -> dict[int, str]:
        """Workers whose stored reliability result recommends rejecting them
        (``Recommendation.REJECT``: unreliable *and* fast, i.e. clear random clicking). One
        query. Following 001, a worker who merely fails the reliability test is not failed
        here: the 2014 design paid such workers and only left their scores out, and rejecting
        honest but noisy work on Prolific would punish the participant for the task's
        difficulty."""
        failures: dict[int, str] = {}
        random_clickers = WorkerStat.objects.filter(
            campaign=campaign, worker_id__in=worker_ids, recommendation=Recommendation.REJECT
        ).values_list("worker_id", "p_value", "mean_seconds")
        for worker_id, p_value, mean_seconds in random_clickers:
            details = []
            if p_value is not None:
                details.append(f"reliability test p = {p_value:.3g}")
            if mean_seconds is not None:
                details.append(f"{mean_seconds:.1f} s per judgment")
            failures[worker_id] = failure_reason(
                "Unreliable and fast: clear random clicking", ", ".join(details)
            )
        return failures
