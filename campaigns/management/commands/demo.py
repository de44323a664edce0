"""Set up a demo site: migrate, an ``admin`` superuser and one campaign per task kind.

The campaigns are loaded from the bundled sample ``campaigns/sample/demo.tsv`` (German to
English, 4 documents, 28 segments, 4 systems) through the same importer a requester uses
(``campaigns.importers.run_import``); the translation campaign takes two of its documents
(14 sentences) with three systems' outputs (what pasted translations are compared with, and
the systems scored on the crowd's test set) and the professional references (for BLEU).
Running the command again loads nothing twice: a campaign whose name exists is reported as
"already loaded". The admin password is generated afresh on every run (an existing ``admin``
gets a new one) and printed in the final banner.
"""

from __future__ import annotations

import secrets
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import reverse

from campaigns.actions import build_hits, has_hit_builder
from campaigns.importers import ImportFailed, run_import
from campaigns.kinds import new_campaign
from campaigns.models import (
    AssessmentMode,
    Campaign,
    CampaignStatus,
    GoldAnswer,
    Output,
    TaskKind,
)

SAMPLE_PATH = Path(__file__).resolve().parents[2] / "sample" / "demo.tsv"
ADMIN_USERNAME = "admin"
DEFAULT_BASE_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class DemoCampaign:
    """One demo campaign: its name, kind and what workers read."""

    name: str
    kind: str
    title: str
    description: str
    instructions: str
    reward: Decimal
    keywords: str
    options: dict[str, Any] = field(default_factory=dict)
    # Campaign fields beyond the shared ones below (e.g. ask_background).
    campaign_fields: dict[str, Any] = field(default_factory=dict)
    # A part of the sample only: these documents and systems (None: all of them).
    documents: tuple[str, ...] | None = None
    systems: tuple[str, ...] | None = None


# Instructions follow the papers' own wording where they give it (see shared METHODS.md):
# ranking and post-editing from Callison-Burch 2009 (000) and WMT08, the slider statements from
# Graham et al. 2013/2014 (001), reading comprehension and translation from 000 again.
DEMO_CAMPAIGNS: tuple[DemoCampaign, ...] = (
    DemoCampaign(
        name="Demo: ranking (de-en)",
        kind=TaskKind.RANKING,
        title="Rank four English translations from best to worst",
        description=(
            "Compare machine translations of German sentences into English and rank them from "
            "best to worst. Short texts about a web forum, a bakery, a library and a market."
        ),
        instructions=(
            "Evaluate machine translation quality: rank each translation from best to worst "
            "relative to the other choices (ties are allowed).\n\n"
            "Each set shows a German sentence, a human translation of it into English, and four "
            "machine translations. Give rank 1 to the best translation and rank 4 to the worst. "
            "Two translations that are equally good may share a rank.\n\n"
            "Judge how well each translation conveys the meaning of the sentence and how good its "
            "English is. There are three sets on each page."
        ),
        reward=Decimal("0.30"),
        keywords="translation, ranking, English, German",
        # 4 outputs per set and 3 sets per page as in Paul et al. 2013 (002).
        options={"outputs_per_set": 4, "sets_per_hit": 3, "gold_scheme": "best_worst"},
    ),
    DemoCampaign(
        name="Demo: direct assessment, fluency (de-en)",
        kind=TaskKind.DIRECT_ASSESSMENT,
        title="How fluent is this English text?",
        description="Read short English texts one at a time and rate how fluent each one is.",
        instructions=(
            "You will read English texts one at a time. For each text, move the slider to show "
            "how much you agree with this statement:\n\n"
            "The text is fluent English.\n\n"
            "The left end of the slider means you strongly disagree, the right end that you "
            "strongly agree. There are no numbers: place the slider wherever matches your "
            "judgment.\n\n"
            "Judge each text on its own. You cannot go back to an earlier text; the page shows "
            "how many you have done."
        ),
        reward=Decimal("1.50"),
        keywords="translation, fluency, English, rating",
        options={"assessment_mode": AssessmentMode.FLUENCY, "items_per_hit": 100},
    ),
    DemoCampaign(
        name="Demo: direct assessment, adequacy (de-en)",
        kind=TaskKind.DIRECT_ASSESSMENT,
        title="Does the black text say the same as the gray text?",
        description=(
            "Compare short English texts with a reference text and rate how well each one "
            "expresses its meaning."
        ),
        instructions=(
            "You will see two English texts at a time: a reference in gray and, below it, a "
            "text in black. Move the slider to show how much you agree with this statement:\n\n"
            "The black text adequately expresses the meaning of the gray text.\n\n"
            "The left end of the slider means you strongly disagree, the right end that you "
            "strongly agree. There are no numbers: place the slider wherever matches your "
            "judgment.\n\n"
            "Judge each pair on its own. You cannot go back to an earlier pair; the page shows "
            "how many you have done."
        ),
        reward=Decimal("1.50"),
        keywords="translation, adequacy, meaning, English, rating",
        options={"assessment_mode": AssessmentMode.ADEQUACY, "items_per_hit": 100},
    ),
    DemoCampaign(
        name="Demo: post-editing (de-en)",
        kind=TaskKind.POST_EDITING,
        title="Edit machine translations: same meaning & good English",
        description=(
            "Correct machine translations into English with as few edits as possible, so that "
            "they say what the human translation says."
        ),
        # The page itself shows the post-editing guidelines (judgments.kinds.post_editing):
        # the campaign's own instructions add only what is particular to this campaign.
        instructions=(
            "Each task is one short article: a web forum's new rules, a bakery's anniversary, "
            "a city library or a weekly market. Some sentences quote the forum's markup, such "
            "as <b> or <script>alert(1)</script>: it is plain text. Keep it exactly as it is "
            "written."
        ),
        reward=Decimal("0.80"),
        keywords="translation, post-editing, English, correction",
        # One HIT per document: the sample's documents have 7 segments each.
        options={"segments_per_hit": 7},
    ),
    DemoCampaign(
        name="Demo: reading comprehension (de-en)",
        kind=TaskKind.READING_COMPREHENSION,
        title="Read a short article and write, choose, answer or grade questions",
        description=(
            "Short articles about a web forum, a bakery, a library and a market. Depending on "
            "the task: write questions, vote on questions, answer questions or grade answers."
        ),
        instructions=(
            "This campaign has four kinds of tasks; each task page says which one you have.\n\n"
            "Write questions: read the short article, then write three reading comprehension "
            "questions about it, giving a sample answer for each. Good questions ask why "
            "something happened or why someone did something, or ask about relationships "
            "between people or things, and can be answered in a few words. Poor questions ask "
            "about numbers or dates, or only need a yes/no answer.\n\n"
            "Choose questions: vote on whether each question is a good one and mark the "
            "questions that ask the same thing as another one.\n\n"
            "Answer questions: you will answer questions about an article that has been "
            "automatically translated from German into English. The translation may contain "
            "many errors; the goal is to see how understandable it is. Read the article, "
            "answer the questions in just a few words, and give your best guess even if the "
            "translation is hard to understand. Do not use any other information.\n\n"
            "Grade answers: read the article, the question and its sample answer, and mark "
            "each answer as correct or not."
        ),
        reward=Decimal("0.50"),
        keywords="reading, questions, English, comprehension",
    ),
    DemoCampaign(
        name="Demo: translation (de-en)",
        kind=TaskKind.TRANSLATION,
        title="Translate short German sentences into English",
        description=(
            "Answer a few questions about your languages, then translate short German texts "
            "into English (no machine translation)."
        ),
        # The page shows 000's instructions itself (what a translation must be, no machine
        # translation, a dictionary allowed), after the questions about the worker's
        # languages: the campaign's own words only add what this campaign is.
        instructions=(
            "Each task is one short text of seven sentences: translate them one after the "
            "other, each as it stands."
        ),
        # 000 paid $0.10 a sentence: a HIT is one document of 7 sentences.
        reward=Decimal("0.70"),
        keywords="translation, German, English",
        options={
            "segments_per_hit": 7,
            "source_as_image": True,
            "detect_mt_voters": 3,
            # 000: $0.006 a Detect-MT judgment, 7 a HIT; 004: $0.25 to correct ten sentences.
            "detect_mt_reward": Decimal("0.05"),
            "correction_pass": True,
            "correction_reward": Decimal("0.20"),
        },
        campaign_fields={"ask_background": True},
        # Markup quoted in the text, right-to-left and CJK words inside the German: what the
        # source images must render.
        documents=("forum-rules", "city-library"),
        # The strongest, a literal and the weakest system (see campaigns/sample/README.md).
        systems=("Lindenbaum-NMT", "OpusBase-2026", "RuleBased-Classic"),
    ),
)


# The sample's strongest and weakest systems (see campaigns/sample/README.md).
DEMO_BEST_SYSTEM = "Lindenbaum-NMT"
DEMO_WORST_SYSTEM = "RuleBased-Classic"


def add_demo_gold_answers(campaign: Campaign) -> None:
    """Every fourth segment becomes a gold unit whose best and worst outputs are known (002's
    best+worst scheme): in the sample, the strongest and the weakest system."""
    outputs = {
        (segment_id, system): pk
        for pk, segment_id, system in Output.objects.filter(
            segment__campaign=campaign, system__name__in=[DEMO_BEST_SYSTEM, DEMO_WORST_SYSTEM]
        ).values_list("pk", "segment_id", "system__name")
    }
    segments = campaign.segments.order_by("document__position", "position")
    GoldAnswer.objects.bulk_create(
        GoldAnswer(
            segment=segment,
            best_output_id=outputs[(segment.pk, DEMO_BEST_SYSTEM)],
            worst_output_id=outputs[(segment.pk, DEMO_WORST_SYSTEM)],
        )
        for segment in list(segments)[::4]
    )


def sample_part_tsv(
    sample: Path,
    destination: Path,
    documents: tuple[str, ...] | None,
    systems: tuple[str, ...] | None,
) -> Path:
    """Write the rows of ``sample`` whose document is in ``documents`` and whose system is in
    ``systems`` (None: every one), header included.

    The sample has no tab or newline inside a field, so plain splitting is exact and keeps
    every character (quotes included) as it is.
    """
    lines = [line.removesuffix("\r") for line in sample.read_text(encoding="utf-8").split("\n")]
    header = lines[0].split("\t")
    doc_col, system_col = header.index("doc_id"), header.index("system")
    rows = [lines[0]]
    for line in lines[1:]:
        if not line.strip():
            continue
        cells = line.split("\t")
        if documents is not None and cells[doc_col] not in documents:
            continue
        if systems is not None and cells[system_col] not in systems:
            continue
        rows.append(line)
    destination.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return destination


class Command(BaseCommand):
    help = (
        "Migrate, create or reset the 'admin' superuser, load the bundled German-English sample "
        "as one active campaign per task kind, and print the admin and worker URLs."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--base-url",
            default=None,
            help="Address the printed URLs start with (default: the PUBLIC_BASE_URL setting, "
            f"{DEFAULT_BASE_URL} when unset).",
        )

    def handle(self, *args, base_url: str | None = None, **options) -> None:
        base_url = base_url or getattr(settings, "PUBLIC_BASE_URL", "") or DEFAULT_BASE_URL
        base_url = base_url.rstrip("/")

        call_command("migrate", interactive=False, verbosity=0)
        password, existed = self.reset_admin()
        owner = get_user_model().objects.get(username=ADMIN_USERNAME)

        campaigns = []
        with tempfile.TemporaryDirectory(prefix="evalsite-demo-") as tmp:
            for number, spec in enumerate(DEMO_CAMPAIGNS):
                # The admin's own demo campaign: names are unique per owner (issue 11 item 8),
                # so another requester's campaign of the same name is not the demo's.
                existing = Campaign.objects.filter(name=spec.name, owner=owner).first()
                if existing is not None:
                    self.stdout.write(f"{spec.name}: already loaded (campaign {existing.pk}).")
                    campaigns.append(existing)
                    continue
                path = SAMPLE_PATH
                if spec.documents is not None or spec.systems is not None:
                    path = sample_part_tsv(
                        SAMPLE_PATH, Path(tmp) / f"demo-{number}.tsv", spec.documents, spec.systems
                    )
                campaign = self.load(spec, path, owner)
                self.stdout.write(f"{spec.name}: loaded ({self.counts(campaign)}).")
                campaigns.append(campaign)

        self.print_banner(base_url, password, existed, campaigns)

    def reset_admin(self) -> tuple[str, bool]:
        """Create the superuser ``admin`` or give the existing one a new password."""
        password = secrets.token_urlsafe(12)
        user_model = get_user_model()
        user = user_model.objects.filter(username=ADMIN_USERNAME).first()
        if user is None:
            user_model.objects.create_superuser(ADMIN_USERNAME, "", password)
            return password, False
        user.set_password(password)
        user.is_staff = user.is_superuser = user.is_active = True
        user.save()
        return password, True

    def load(self, spec: DemoCampaign, path: Path, owner) -> Campaign:
        """Create one campaign and import ``path`` into it, all or nothing."""
        try:
            with transaction.atomic():
                campaign = new_campaign(
                    kind=spec.kind,
                    settings=spec.options,
                    name=spec.name,
                    status=CampaignStatus.DRAFT,
                    owner=owner,
                    source_language="de",
                    target_language="en",
                    instructions=spec.instructions,
                    instructions_language="en",
                    title=spec.title,
                    description=spec.description,
                    keywords=spec.keywords,
                    reward=spec.reward,
                    **spec.campaign_fields,
                )
                campaign.full_clean()
                campaign = campaign.save()
                run_import(campaign, "tsv", path)
                if campaign.kind == TaskKind.RANKING:
                    add_demo_gold_answers(campaign)
                if has_hit_builder(campaign.kind):
                    build_hits(campaign)
                # Loaded as a draft like any import, then opened to workers.
                campaign.status = CampaignStatus.ACTIVE
                campaign.save(update_fields=["status", "updated_at"])
        except ImportFailed as failure:
            problems = "\n".join(f"  {problem}" for problem in failure.problems)
            raise CommandError(f"Could not load {spec.name} from {path}:\n{problems}") from None
        return campaign

    @staticmethod
    def counts(campaign: Campaign) -> str:
        return (
            f"{campaign.documents.count()} documents, {campaign.segments.count()} segments, "
            f"{campaign.systems.count()} systems, "
            f"{Output.objects.filter(segment__campaign=campaign).count()} outputs, "
            f"{campaign.hits.count()} HITs"
        )

    def print_banner(
        self, base_url: str, password: str, existed: bool, campaigns: list[Campaign]
    ) -> None:
        width = max(len(c.name) for c in campaigns)
        rule = "=" * 78
        lines = [
            "",
            rule,
            "evalsite demo is ready.",
            "",
            f"Admin:     {base_url}{reverse('admin:index')}",
            f"Username:  {ADMIN_USERNAME}",
            f"Password:  {password}",
        ]
        if existed:
            lines.append(
                f"           (the user {ADMIN_USERNAME} already existed: its password was reset "
                "to this new one)"
            )
        lines += ["", "Worker entry pages:"]
        for campaign in campaigns:
            path = reverse("judgments:campaign-entry", kwargs={"campaign_id": campaign.pk})
            lines.append(f"  {campaign.name:<{width}}  {base_url}{path}")
        lines += [rule, ""]
        self.stdout.write("\n".join(lines))
