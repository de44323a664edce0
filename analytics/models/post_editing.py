"""Post-editing's stored numbers: TER per edit and output (computed once per signature) and
the results aggregated from them."""

from __future__ import annotations

from django.db import models

from campaigns.models import Campaign, Output, System
from judgments.models import Judgment, Worker


class PostEditScore(models.Model):
    """The TER numbers of one post-edit (a judgment on a post-editing slot), computed once with
    sacrebleu when the edit arrives (``analytics.kinds.post_editing.scoring``) so that a
    recompute only aggregates.

    ``edits`` / ``ref_length``: TER with hypothesis = the MT output and reference = the edit
    (the edit's HTER statistics). ``reference_edits`` / ``reference_length``: TER with
    hypothesis = the edit and reference = the segment's main reference (the worker profile's
    distance to the reference); empty when the segment has no reference. ``signature`` is
    sacrebleu's signature of the campaign's TER settings: other settings are another signature,
    and every edit is scored again under it.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_edit_scores"
    )
    judgment = models.ForeignKey(
        Judgment, on_delete=models.CASCADE, related_name="post_edit_scores"
    )
    signature = models.CharField(max_length=200)
    edits = models.PositiveIntegerField()
    ref_length = models.FloatField(help_text="Words of the edit (TER's reference length).")
    reference_edits = models.PositiveIntegerField(null=True, blank=True)
    reference_length = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judgment", "signature"], name="post_edit_score_unique"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "signature"])]

    def __str__(self) -> str:
        return f"TER of judgment {self.judgment_id}: {self.edits}/{self.ref_length:g}"


class PostEditOutputScore(models.Model):
    """TER of one MT output against its segment's main reference (hypothesis = the output),
    computed once per signature: an output's HTER when none of its edits passed verification,
    and 000 Table 2's "0 editors". ``edits`` and ``ref_length`` are empty when the segment has
    no reference (the row says it was looked at)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_edit_output_scores"
    )
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="post_edit_scores")
    signature = models.CharField(max_length=200)
    edits = models.PositiveIntegerField(null=True, blank=True)
    ref_length = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["output", "signature"], name="post_edit_output_score_unique"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "signature"])]

    def __str__(self) -> str:
        return f"TER of output {self.output_id} against the reference"


class PostEditingResult(models.Model):
    """When a post-editing campaign's statistics were computed, over what, with which TER.

    ``computed_at`` is taken before loading (as for :class:`CampaignResult`); ``n_judgments``
    counts the edits and verification votes read (the sweep compares it with the database),
    ``n_scored_judgments`` the crowd edits and votes counted in the default scores.
    ``ter_signature`` is sacrebleu's signature of every TER the result sums, from the settings
    ``ter_case_sensitive`` and ``ter_normalized``; with ``gold_editor`` these are the
    campaign's settings used, and the sweep recomputes when they no longer match.
    ``n_passed`` / ``n_failed`` / ``n_unverified``: the crowd edits' verification outcomes
    (an edit without a vote counts as passed in the scores).

    ``details`` holds, per variant ("unflagged" and "all"), what does not fit a row per
    system: the paired Wilcoxon p-values, the best and worst segments, 000's subsampling table
    and 003's combinations with the document ranking (when gold edits exist); and the
    bootstrap settings.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(help_text="Edits and verification votes read.")
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, crowd edits and votes counted in the default scores."
    )
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    n_workers = models.PositiveIntegerField()
    n_edits = models.PositiveIntegerField()
    n_votes = models.PositiveIntegerField()
    n_gold_edits = models.PositiveIntegerField(default=0)
    n_outputs = models.PositiveIntegerField(help_text="Outputs with a counted edit.")
    n_passed = models.PositiveIntegerField(default=0)
    n_failed = models.PositiveIntegerField(default=0)
    n_unverified = models.PositiveIntegerField(default=0)
    ter_signature = models.CharField(max_length=200)
    ter_case_sensitive = models.BooleanField()
    ter_normalized = models.BooleanField()
    gold_editor = models.CharField(max_length=200, blank=True)
    compute_seconds = models.FloatField(default=0.0)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return f"Post-editing results of {self.campaign} at {self.computed_at:%Y-%m-%d %H:%M:%S}"

    def variant(self, include_flagged: bool) -> dict:
        return self.details.get(flag_variant_key(include_flagged), {})


def flag_variant_key(include_flagged: bool) -> str:
    return "all" if include_flagged else "unflagged"


class PostEditingSystemScore(models.Model):
    """One system's HTER in one post-editing campaign, for one variant (lower is better).

    ``include_flagged`` False: editors flagged for doing nothing or copying the reference are
    left out (the default view); True: every editor. Excluded workers, rejected assignments
    and the gold editor count in neither. ``corpus`` is total edits / total reference words
    over the system's outputs (000 Table 2), ``mean`` the mean of segment HTER, each with a
    bootstrap interval over segments; ``cluster`` and the rank range come from paired
    Wilcoxon tests on segment HTER (WMT's rule). ``position`` is by mean HTER, best first.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_scores"
    )
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="hter_scores")
    include_flagged = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    n_outputs = models.PositiveIntegerField(help_text="Outputs (segments) scored.")
    n_from_reference = models.PositiveIntegerField(
        help_text="Of those, scored against the reference: no edit passed."
    )
    n_edits = models.PositiveIntegerField()
    n_passed = models.PositiveIntegerField()
    n_verified = models.PositiveIntegerField(help_text="Edits with at least one vote.")
    edits = models.PositiveIntegerField(help_text="Edits of the chosen post-edits, summed.")
    ref_length = models.FloatField()
    corpus = models.FloatField()
    corpus_ci_low = models.FloatField(null=True, blank=True)
    corpus_ci_high = models.FloatField(null=True, blank=True)
    mean = models.FloatField()
    mean_ci_low = models.FloatField(null=True, blank=True)
    mean_ci_high = models.FloatField(null=True, blank=True)
    cluster = models.PositiveSmallIntegerField()
    rank_best = models.PositiveSmallIntegerField()
    rank_worst = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "include_flagged", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "include_flagged"], name="hter_score_unique"
            ),
            models.UniqueConstraint(
                fields=["campaign", "include_flagged", "position"], name="hter_score_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system}: HTER {self.corpus:.3f}"

    @property
    def rank_range(self) -> str:
        if self.rank_best == self.rank_worst:
            return str(self.rank_best)
        return f"{self.rank_best}–{self.rank_worst}"

    @property
    def verified_share(self) -> float | None:
        return self.n_verified / self.n_edits if self.n_edits else None


class PostEditingWorkerStat(models.Model):
    """One worker's profile in one post-editing campaign (003 section 7), over all of their
    edits there: the mean TER distance of their edits to the MT output and to the reference,
    the shares of unchanged and copied edits and the flags (did nothing, copied the
    reference), their edits' verification outcomes and votes given; 003's worker weight from
    segments with a gold edit (``gold_distance``: mean |their TER - the gold TER|; empty
    without such a segment). ``gold``: the campaign's gold editor. ``in_scores``: their edits
    count in the default scores (not excluded, flagged or gold)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_worker_stats"
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="post_editing_stats")
    n_edits = models.PositiveIntegerField()
    n_votes = models.PositiveIntegerField(help_text="Verification votes given.")
    mean_ter_to_mt = models.FloatField(null=True, blank=True)
    mean_ter_to_reference = models.FloatField(null=True, blank=True)
    share_unchanged = models.FloatField(null=True, blank=True)
    share_copied = models.FloatField(null=True, blank=True)
    did_nothing = models.BooleanField(default=False)
    copied_reference = models.BooleanField(default=False)
    n_passed = models.PositiveIntegerField(default=0)
    n_failed = models.PositiveIntegerField(default=0)
    n_unverified = models.PositiveIntegerField(default=0)
    n_gold_segments = models.PositiveIntegerField(default=0)
    gold_distance = models.FloatField(null=True, blank=True)
    weight = models.FloatField(null=True, blank=True)
    gold = models.BooleanField(default=False)
    excluded = models.BooleanField(default=False)
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    in_scores = models.BooleanField()

    class Meta:
        ordering = ["campaign", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "worker"], name="post_editing_worker_stat_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}"
