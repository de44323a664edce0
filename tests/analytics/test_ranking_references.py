"""The requester's reference ranking and oracle: the text syntax and its errors."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from analytics.models import (
    RankingReference,
    ReferenceTextError,
    parse_oracle,
    parse_reference_ranking,
)
from campaigns.models import TaskKind
from tests.factories import CampaignFactory, SystemFactory

SYSTEMS = {"online-A": 11, "uedin": 12, "rbmt-3": 13, "ref": 14}


def test_a_reference_ranking_is_one_name_per_line_best_first_with_ties():
    text = "  uedin\n\n# experts, WMT08\nonline-A = rbmt-3\nref\n"
    assert parse_reference_ranking(text, SYSTEMS) == ([12, 11, 13, 14], [1, 2, 2, 4])


def test_an_empty_reference_ranking_is_empty():
    assert parse_reference_ranking("\n  \n", SYSTEMS) == ([], [])


def test_unknown_and_repeated_names_are_errors_by_line_listing_the_systems():
    with pytest.raises(ReferenceTextError) as error:
        parse_reference_ranking("uedin\nUEDIN\nrbmt-3 = uedin\n = ref", SYSTEMS)
    assert str(error.value) == (
        "Line 2: there is no system named 'UEDIN' in this campaign. "
        "Line 3: 'uedin' is already ranked on line 1. "
        "Line 4 has an empty system name. "
        "The campaign's systems are: online-A, rbmt-3, ref, uedin."
    )


def test_an_oracle_is_lines_of_better_than_chains():
    assert parse_oracle("uedin > rbmt-3\nref > uedin > online-A", SYSTEMS) == [
        [12, 13],
        [14, 12, 11],
    ]


def test_oracle_syntax_errors_and_contradictions():
    with pytest.raises(ReferenceTextError) as error:
        parse_oracle("uedin\nuedin > rbmt-3\nrbmt-3 > online-A > uedin\nref > ref", SYSTEMS)
    assert error.value.problems == [
        "Line 1: write 'X > Y' (X is better than Y), not 'uedin'.",
        "Line 3 contradicts line 2 about 'rbmt-3' and 'uedin'.",
        "Line 4 names a system twice.",
    ]


@pytest.mark.django_db
def test_the_model_validates_both_texts_against_the_campaigns_systems():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    for name in ("A", "B"):
        SystemFactory(campaign=campaign, name=name)
    reference = RankingReference(campaign=campaign, reference_ranking="A\nC", oracle="B > A")
    with pytest.raises(ValidationError) as error:
        reference.full_clean()
    assert error.value.message_dict == {
        "reference_ranking": [
            "Line 2: there is no system named 'C' in this campaign. The campaign's systems "
            "are: A, B."
        ]
    }
    RankingReference(campaign=campaign, reference_ranking="A\nB", oracle="B > A").full_clean()
