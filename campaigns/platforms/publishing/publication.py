"""Publishing: our qualification type, the qualification-test HIT, then the regular HITs, each
MTurk HIT recorded the moment MTurk returns it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, MTurkHit, PlatformEventKind
from campaigns.platforms import clients, events, mturk
from campaigns.platforms.mturk import HitSettings, MTurkError, MTurkPartialError

from .planning import (
    Problem,
    environment_label,
    hit_settings_for,
    plan,
    plan_changed_message,
    plan_changes,
    qualification_type_description,
    qualification_type_name,
    request_token_prefix,
    task_url,
)

REVIEW_AGAIN = (
    "Look at the plan again (the admin's 'Publish to MTurk' page or manage.py mturk_hits plan) "
    "and confirm what it shows now."
)


@dataclass
class PublishResult:
    """The outcome of :func:`publish`; ``as_dict`` is what the Celery task returns."""

    campaign_id: int
    sandbox: bool
    created: int = 0
    recovered: int = 0  # created by an earlier attempt, found again through the token
    group_ids: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    error_code: str = ""
    error_message: str = ""
    error_what_to_do: str = ""

    @property
    def published(self) -> int:
        return self.created + self.recovered

    @property
    def ok(self) -> bool:
        return not self.problems and not self.error_code

    @property
    def preview_urls(self) -> list[str]:
        return [mturk.preview_url(group, sandbox=self.sandbox) for group in self.group_ids]

    def message(self) -> str:
        """One paragraph for the admin's message and the command's output."""
        where = f"MTurk {environment_label(self.sandbox).upper()}"
        done = f"Published {self.published} HIT(s) to {where}"
        if self.recovered:
            done += f" ({self.recovered} of them created by an earlier attempt and recorded now)"
        if self.problems:
            return "Nothing was published. " + " ".join(str(p) for p in self.problems)
        if self.error_code:
            kept = (
                f" {done}; they are kept, and publishing again creates only the missing ones."
                if self.published
                else " Nothing was published."
            )
            return (
                f"MTurk refused ({self.error_code}): {self.error_message}{kept} What to do: "
                f"{self.error_what_to_do}"
            )
        if not self.published:
            return "Nothing to publish: every HIT is already on MTurk."
        return done + "."

    def as_dict(self) -> dict[str, Any]:
        return {
            "campaign_id": self.campaign_id,
            "sandbox": self.sandbox,
            "created": self.created,
            "recovered": self.recovered,
            "group_ids": list(self.group_ids),
            "problems": [[p.message, p.what_to_do] for p in self.problems],
            "error_code": self.error_code,
            "error_message": self.error_message,
            "error_what_to_do": self.error_what_to_do,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PublishResult:
        values = dict(data)
        values["problems"] = [Problem(*pair) for pair in values.get("problems", [])]
        return cls(**values)


def _record_published(
    campaign: Campaign, hit_settings: HitSettings, published: mturk.PublishedHit
) -> MTurkHit:
    """Write the MTurkHit row at once, in its own transaction, so it survives a later failure.

    ``get_or_create``: a concurrent attempt with the same token recovers the same MTurk HIT,
    and must find the row the first one wrote rather than fail.
    """
    now = timezone.now()
    with transaction.atomic():
        row, _ = MTurkHit.objects.get_or_create(
            hit_id=published.our_hit_id,
            defaults={
                "mturk_hit_id": published.hit_id,
                "hit_type_id": published.hit_type_id,
                "hit_group_id": published.hit_group_id,
                "sandbox": campaign.mturk_sandbox,
                "max_assignments": hit_settings.max_assignments,
                "reward": hit_settings.reward,
                "expires_at": now + timedelta(seconds=hit_settings.lifetime_seconds),
            },
        )
    return row


def _fail(result: PublishResult, campaign: Campaign, error: MTurkError) -> PublishResult:
    what_to_do = error.what_to_do
    if result.published:
        what_to_do += (
            f" The {result.published} HIT(s) published before the error are kept; publishing "
            "again creates only the missing ones."
        )
    result.error_code, result.error_message = error.code, error.message
    result.error_what_to_do = what_to_do
    recorded = MTurkError(error.operation, error.code, error.message, what_to_do)
    events.record_error(campaign.pk, "publish", recorded)
    return result


def publish(
    campaign_id: int,
    hit_ids: Sequence[int] | None = None,
    client: Any = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    expected: dict[str, Any] | None = None,
) -> PublishResult:
    """Publish the campaign's HITs that are not on MTurk yet (or those of ``hit_ids``).

    Order: our qualification type (when the campaign requires the test: found by name or
    created, its id stored on the campaign), the qualification-test HIT with its own settings,
    then the regular HITs. Problems found by :func:`plan` publish nothing. An MTurk error is
    stored as a PlatformEvent and returned in the result; the HITs created before it are kept.
    ``progress(done, total)`` is called after each HIT (the command's progress bar).
    ``expected`` is the fingerprint of the plan the requester confirmed (:meth:`Plan.fingerprint`):
    when the plan now differs (the campaign changed since), nothing is published.
    """
    campaign = Campaign.objects.get(pk=campaign_id)
    current = plan(campaign, hit_ids)
    result = PublishResult(campaign_id=campaign.pk, sandbox=campaign.mturk_sandbox)
    changes = plan_changes(current, expected) if expected is not None else []
    if changes:
        # Queued publications end here too: the event tells the requester on the campaign page.
        problem = Problem(plan_changed_message(changes), REVIEW_AGAIN)
        result.problems = [problem]
        events.record_event(
            campaign.pk,
            PlatformEventKind.ERROR,
            "publish",
            f"Nothing was published. {problem.message}",
            what_to_do=problem.what_to_do,
        )
        return result
    if current.problems:
        result.problems = list(current.problems)
        return result
    if not current.hit_count:
        return result
    client = client or clients.mturk_client(campaign.mturk_sandbox)

    # The type exists before any HIT: a worker who passes the test HIT published now must be
    # granted the qualification even if the regular HITs are published later.
    if campaign.qualification_required:
        try:
            type_id = mturk.ensure_qualification_type(
                client, qualification_type_name(campaign), qualification_type_description(campaign)
            )
        except MTurkError as error:
            return _fail(result, campaign, error)
        if campaign.mturk_qualification_type_id != type_id:
            campaign.mturk_qualification_type_id = type_id
            Campaign.objects.filter(pk=campaign.pk).update(mturk_qualification_type_id=type_id)

    total, done = current.hit_count, 0
    batches = [
        (current.qualification_hits, hit_settings_for(campaign, qualification_test=True))
        if current.qualification_hits
        else None,
        (current.regular_hits, hit_settings_for(campaign)) if current.regular_hits else None,
    ]
    for batch in batches:
        if batch is None:
            continue
        hits, hit_settings = batch

        def on_published(published: mturk.PublishedHit, hit_settings=hit_settings) -> None:
            nonlocal done
            row = _record_published(campaign, hit_settings, published)
            if published.reused:
                result.recovered += 1
            else:
                result.created += 1
            if row.hit_group_id and row.hit_group_id not in result.group_ids:
                result.group_ids.append(row.hit_group_id)
            done += 1
            if progress is not None:
                progress(done, total)

        try:
            mturk.publish_hits(
                client,
                hit_settings,
                [(hit.pk, task_url(hit)) for hit in hits],
                request_token_prefix=request_token_prefix(campaign),
                on_published=on_published,
            )
        except MTurkPartialError as error:
            return _fail(result, campaign, error.error)
        except MTurkError as error:
            return _fail(result, campaign, error)

    preview = "; ".join(result.preview_urls)
    events.record_event(
        campaign.pk,
        PlatformEventKind.INFO,
        "publish",
        f"Published {result.published} HIT(s) to MTurk's {environment_label(result.sandbox)}"
        + (f" ({result.recovered} recovered from an earlier attempt)." if result.recovered else ".")
        + f" Most it can cost: ${current.total_cost:.2f}.",
        what_to_do=f"Check the HITs as a worker sees them: {preview}" if preview else "",
    )
    return result
