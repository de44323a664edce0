"""A builder's refusal told with names (issue 17 item 1): BuildProblem keeps the ids the pure
builders work with; campaigns.actions.explain names systems, segments and outputs as the
requester knows them."""

from __future__ import annotations

import pytest

from campaigns.actions import explain
from campaigns.builders.problems import LISTED, BuildProblem
from campaigns.models import Output, Segment, System
from tests.campaigns.test_actions import da_campaign

pytestmark = pytest.mark.django_db


def test_systems_segments_and_outputs_are_named_with_counts_and_lists():
    campaign = da_campaign(systems=3, segments=2)
    document = campaign.documents.get().external_id
    systems = {s.name: s.pk for s in System.objects.filter(campaign=campaign)}
    segment = Segment.objects.get(campaign=campaign, external_id="2")
    output = Output.objects.get(segment=segment, system_id=systems["sys1"])
    problem = BuildProblem(
        "{systems} are short; {segments} has none; {outputs} is odd",
        systems=[systems["sys0"], systems["sys2"]],
        segments=[segment.pk],
        outputs=[output.pk],
        counts={systems["sys0"]: 3},
    )
    assert str(problem) == (
        f"[{systems['sys0']}, {systems['sys2']}] are short; [{segment.pk}] has none; "
        f"[{output.pk}] is odd"
    )
    assert explain(problem, campaign) == (
        f'"sys0" (3) and "sys2" are short; segment "2" of document "{document}" has none; the '
        f'output of "sys1" for segment "2" of document "{document}" is odd'
    )


def test_long_lists_name_the_first_and_count_the_rest():
    campaign = da_campaign(systems=1, segments=LISTED + 3)
    ids = list(
        Segment.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True)
    )
    text = explain(BuildProblem("missing: {segments}", segments=ids), campaign)
    assert text.startswith('Missing: segment "1" of document ')
    assert text.endswith(" and 3 more")
    assert text.count("segment ") == LISTED


def test_several_lists_of_one_sort():
    campaign = da_campaign(systems=1, segments=2)
    first, second = Segment.objects.filter(campaign=campaign).order_by("pk")
    problem = BuildProblem(
        "a: {a}; b: {b}", lists={"a": ("segments", [first.pk]), "b": ("segments", [second.pk])}
    )
    document = first.document.external_id
    assert explain(problem, campaign) == (
        f'A: segment "1" of document "{document}"; b: segment "2" of document "{document}"'
    )
