"""Standardised (z-score) files: a judgment with a given z keeps it as its z, its raw mean is
missing, and the reliability tests, significance and agreement run on the given z-scores."""

import io

import numpy as np
import pytest

from analytics.actions import stale_campaigns
from analytics.models import CampaignResult, SystemScore, WorkerStat
from analytics.stats.direct_assessment import DAJudgments, agreement, standardize, system_scores
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Campaign
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import WMT_DA_STANDARDISED


def upload(text: str, name: str = "ad-csen-good-stnd.tsv") -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


@pytest.mark.django_db
def test_standardised_file_uses_the_given_z_scores():
    # A "good" file counts everyone by default (WMT filtered it); this test is about the
    # reliability test on given z-scores, so it asks for the workers to be tested again.
    summary = import_judgments(
        [upload(WMT_DA_STANDARDISED)],
        ImportOptions("wmt-da", name="z", standardised=True, workers_counted="reliable"),
    )
    campaign = Campaign.objects.get()
    assert summary.message.endswith(
        'into new campaign "z" (direct assessment, standardised scores).'
    )
    assert Judgment.objects.filter(score__isnull=True, given_z__isnull=False).count() == 44
    assert (
        Judgment.objects.get(
            worker__external_id="W2", slot__role="bad_reference", slot__segment__external_id="3"
        ).given_z
        == 0.5
    )

    # Reliability on the given z-scores: W1's outputs are 2.0 above their bad references five
    # times (p = 1/32); W2's 1.0 twice and 0 three times (p = 1/4). A worker's z is a positive
    # linear rescaling of their raw scores, so the tests say what they would on raw scores.
    stats = dict(
        WorkerStat.objects.filter(campaign=campaign).values_list("worker__external_id", "p_value")
    )
    assert stats == {"W1": pytest.approx(1 / 32), "W2": pytest.approx(1 / 4)}

    # System scores: the mean of the given z over outputs and repeats; no raw mean.
    # Reliable (W1): A (6 x 1.0)/6 = 1.0, B -1.0. Everyone: A (6 x 1.0 + 6 x 0.5)/12 = 0.75.
    rows = {
        (score.include_unreliable, score.system.name): (score.n, score.mean_score, score.mean_z)
        for score in SystemScore.objects.filter(campaign=campaign).select_related("system")
    }
    assert rows == {
        (False, "A"): (6, None, pytest.approx(1.0)),
        (False, "B"): (6, None, pytest.approx(-1.0)),
        (True, "A"): (12, None, pytest.approx(0.75)),
        (True, "B"): (12, None, pytest.approx(-0.75)),
    }
    result = CampaignResult.objects.get(campaign=campaign)
    # The sweep counts given z-scores as the loader does: the stored result is up to date.
    assert result.n_judgments == 44
    assert not stale_campaigns().filter(pk=campaign.pk).exists()
    # The same tie structure as the raw file: on segment means (WMT's test) p = 0.001988
    # (see test_import_judgments_wmt_da; it was 0.000631 on the per-judgment z-scores).
    assert result.details["reliable"]["p_greater"][0][1] == pytest.approx(0.0019884, abs=5e-8)
    distinct = result.details["all"]["agreement"]["distinct_judges"]
    # No raw scores: |difference| and the equal-width kappas are missing; 10 pairs all the same.
    assert (distinct["n_pairs"], distinct["mean_abs_diff"], distinct["sd_abs_diff"]) == (
        10,
        None,
        None,
    )
    equal_width = [k for k in distinct["kappas"] if k["binning"] == "equal_width"]
    assert {(k["pr_a"], k["kappa"]) for k in equal_width} == {(None, None)}


def _judgments(score, given_z):
    """Four judgments of one worker: two system outputs, a bad reference of the first, and
    the reference in place of the second."""
    return DAJudgments(
        worker=[1, 1, 1, 1],
        assignment=[1, 1, 1, 1],
        slot=[1, 2, 3, 4],
        role=["system", "system", "bad_reference", "reference"],
        system=[10, 20, -1, -1],
        item=[100, 200, 100, 200],
        pair_slot=[-1, -1, 1, 2],
        score=score,
        seconds=[np.nan] * 4,
        given_z=given_z,
    )


def test_a_given_z_is_the_judgments_z_and_leaves_the_raw_mean_missing():
    judgments = _judgments([np.nan] * 4, [1.5, -0.5, -1.0, 0.0])
    z = standardize(judgments)
    assert z.z.tolist() == [1.5, -0.5, -1.0, 0.0]
    assert np.isnan(z.mean).all() and np.isnan(z.sd).all()  # no raw basis for the worker
    scores = system_scores(judgments, z)
    assert scores.system.tolist() == [10, 20]
    assert scores.mean_z.tolist() == [1.5, -0.5]
    assert np.isnan(scores.mean_score).all()
    pairs = judgments.control_pairs(judgments.role[2])
    assert (pairs.original.tolist(), pairs.control.tolist()) == ([1.5], [-1.0])


def test_raw_judgments_are_unchanged_by_an_empty_given_z():
    # Scores 80, 40, 20, 60: mean 50, sample sd sqrt((900 + 100 + 900 + 100) / 3) = 25.82.
    judgments = _judgments([80.0, 40.0, 20.0, 60.0], [])
    z = standardize(judgments)
    sd = np.sqrt(2000 / 3)
    assert z.z == pytest.approx([30 / sd, -10 / sd, -30 / sd, 10 / sd])
    assert system_scores(judgments, z).mean_score.tolist() == [80.0, 40.0]


def test_given_z_rows_need_no_raw_score_but_other_rows_do():
    with pytest.raises(ValueError, match="score must be finite"):
        _judgments([np.nan, 40.0, 20.0, 60.0], [np.nan, np.nan, np.nan, np.nan])
    with pytest.raises(ValueError, match="given_z must be finite"):
        _judgments([np.nan] * 4, [np.inf, 0.0, 0.0, 0.0])


def test_agreement_on_given_z_only_has_no_raw_figures():
    judgments = DAJudgments(
        worker=[1, 2],
        assignment=[1, 2],
        slot=[1, 2],
        role=["system", "system"],
        system=[10, 10],
        item=[100, 100],
        pair_slot=[-1, -1],
        score=[np.nan, np.nan],
        seconds=[np.nan, np.nan],
        given_z=[0.5, -0.5],
    )
    result = agreement(judgments, standardize(judgments))
    distinct = result.distinct_judges
    assert distinct.n_pairs == 1
    assert np.isnan(distinct.mean_abs_diff) and np.isnan(distinct.sd_abs_diff)
    assert np.isnan(distinct.kappa(5).kappa)
    # By percentile of the two z-scores (edges at the 20/40/60/80% quantiles of -0.5, 0.5):
    # -0.5 falls in the lowest category and 0.5 in the top one: no agreement.
    assert distinct.kappa(5, "z_percentile").pr_a == 0.0
