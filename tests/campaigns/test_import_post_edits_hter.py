"""HTER on import: the import hands the campaign to the recompute, whose first step scores
every new edit with the campaign's TER settings (analytics.kinds.post_editing.scoring); the
numbers are the hand-worked ones of tests/fixtures/post_edits/hand.tsv."""

from pathlib import Path

import pytest

from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.kinds import new_campaign
from campaigns.models import CampaignStatus, TaskKind
from judgments.models import Judgment

scoring = pytest.importorskip("analytics.kinds.post_editing.scoring")
PostEditScore = pytest.importorskip("analytics.models").PostEditScore

pytestmark = pytest.mark.django_db
HAND = str(Path(__file__).resolve().parent.parent / "fixtures" / "post_edits" / "hand.tsv")


def scores() -> list[tuple[str, str, int, float]]:
    """(edit, TER signature's case, edits, reference length) per edit, in the file's order."""
    return [
        (text, signature.split("|")[1], edits, ref_length)
        for text, signature, edits, ref_length in PostEditScore.objects.order_by(
            "judgment_id"
        ).values_list("judgment__text", "signature", "edits", "ref_length")
    ]


def test_the_import_scores_every_edit_with_tercoms_defaults():
    summary = import_judgments(
        [HAND], ImportOptions("post-edits", name="PE", language_pair="de-en")
    )
    assert summary.notes == ()
    # One insertion in 6 words; none; one substitution in 6; one in 3; a shift and a
    # substitution in 3; "He went home." -> "he went home." nothing (case-insensitive).
    assert scores() == [
        ("the cat sat on the mat", "case:lc", 1, 6.0),
        ("the cat sat on mat", "case:lc", 0, 5.0),
        ("the cat sat on the mat", "case:lc", 1, 6.0),
        ("he went home", "case:lc", 1, 3.0),
        ("home he went", "case:lc", 2, 3.0),
        ("he went home.", "case:lc", 0, 3.0),
    ]
    assert PostEditScore.objects.count() == Judgment.objects.count() == 6


def test_the_import_scores_with_the_campaigns_own_settings():
    created = new_campaign(
        kind=TaskKind.POST_EDITING,
        settings={"ter_case_sensitive": True},
        name="PE cased",
        source_language="de",
        target_language="en",
        status=CampaignStatus.FINISHED,
        imported_from="post-edits",
    )
    campaign = created.save()
    import_judgments([HAND], ImportOptions("post-edits", campaign=campaign))
    # Case-sensitive: "He" -> "he" is now a substitution, 1 in 3.
    assert scores()[-1] == ("he went home.", "case:mixed", 1, 3.0)
    assert [row[2:] for row in scores()[:-1]] == [(1, 6.0), (0, 5.0), (1, 6.0), (1, 3.0), (2, 3.0)]
