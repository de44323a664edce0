"""Human-readable flags of each translation, for the campaigns side's "Choose translations"
page (helper of ``campaigns.kinds.translation.admin``), read from the stored results (two
queries)."""

from __future__ import annotations

from analytics.models import TranslationKeptSegment, TranslationResult, TranslationStat
from campaigns.models import Campaign

__all__ = ["kept_translations", "translation_flags"]

# How a kept translation was chosen (TranslationKeptSegment.how), in the admin's words.
HOW_IN_WORDS = {
    "requester": "your choice",
    "consensus": "most similar to the other translations",
    "detect_mt": "fewest 'machine made' votes",
    "best_ranked": "best ranked in the ranking campaign",
}


def translation_flags(campaign: Campaign) -> dict[int, list[str]]:
    """Judgment id -> its flags in words, e.g. ["machine made (2 of 3 votes)", "92.4 chrF to
    system X"]; every stored translation has an entry (empty: no flag). The similarity is
    named when it reached the threshold; a translation not counted (draft, rejected) says so.
    Empty before the first recompute."""
    result = (
        TranslationResult.objects.filter(campaign=campaign)
        .values_list("similarity_metric", flat=True)
        .first()
    )
    if result is None:
        return {}
    metric = "BLEU" if result == "bleu" else "chrF"
    flags: dict[int, list[str]] = {}
    for (
        judgment,
        counted,
        similar,
        similarity,
        system,
        machine,
        human,
        places,
        detected,
        decided,
    ) in (
        TranslationStat.objects.filter(campaign=campaign)
        .order_by()
        .values_list(
            "judgment_id",
            "counted",
            "similar",
            "mt_similarity",
            "mt_system__name",
            "machine_votes",
            "human_votes",
            "vote_places",
            "detected",
            "decided",
        )
    ):
        words: list[str] = []
        if not counted:
            words.append("not counted (assignment not submitted, or rejected)")
        if detected:
            words.append(f"machine made ({machine} of {machine + human} votes)")
        elif places and not decided and (machine or human):
            words.append(f"Detect-MT pending ({machine} of {machine + human} votes machine made)")
        if similar and similarity is not None:
            words.append(f"{similarity:.1f} {metric} to system {system}")
        flags[judgment] = words
    return flags


def kept_translations(campaign: Campaign) -> dict[int, tuple[int, str]]:
    """Segment id -> (the kept translation's judgment id, why, in words) from the stored
    results, e.g. "most similar to the other translations (mean chrF 61.3); final": for the
    "Choose translations" page. One query; empty before the first recompute."""
    kept: dict[int, tuple[int, str]] = {}
    rows = (
        TranslationKeptSegment.objects.filter(campaign=campaign)
        .order_by()
        .values_list(
            "segment_id",
            "judgment_id",
            "how",
            "final",
            "n_eligible",
            "judgment__translation_stat__consensus",
        )
    )
    for segment, judgment, how, final, n_eligible, consensus in rows:
        if how != "requester" and n_eligible == 1:
            why = "the only eligible translation (the others are flagged or excluded)"
        else:
            why = HOW_IN_WORDS.get(how, how)
        if how == "consensus" and consensus is not None:
            why += f" (mean chrF {consensus:.1f})"
        why += "; final" if final else "; provisional: translations or votes still to come"
        kept[segment] = (judgment, why)
    return kept
