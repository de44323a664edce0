"""factory-boy factories: one per model, valid by default, shared by every test module."""

from datetime import timedelta

import factory
from django.utils import timezone

from campaigns.models import (
    AssessmentMode,
    Campaign,
    CampaignStatus,
    Document,
    Hit,
    HitSlot,
    HitTask,
    Output,
    Segment,
    SlotRole,
    System,
    TaskKind,
)
from judgments.models import Assignment, Judgment, Platform, Worker


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"campaign {n}")
    kind = TaskKind.DIRECT_ASSESSMENT
    assessment_mode = AssessmentMode.ADEQUACY
    status = CampaignStatus.ACTIVE
    source_language = "de"
    target_language = "en"


class SystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = System

    campaign = factory.SubFactory(CampaignFactory)
    name = factory.Sequence(lambda n: f"system-{n}")


class DocumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Document

    campaign = factory.SubFactory(CampaignFactory)
    external_id = factory.Sequence(lambda n: f"doc{n}")
    position = factory.Sequence(lambda n: n + 1)


class SegmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Segment

    document = factory.SubFactory(DocumentFactory)
    campaign = factory.SelfAttribute("document.campaign")
    external_id = factory.Sequence(lambda n: str(n + 1))
    position = factory.Sequence(lambda n: n + 1)
    source = factory.Sequence(lambda n: f"Quelltext Nummer {n}.")
    references = factory.Sequence(lambda n: [f"Source text number {n}."])


class OutputFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Output

    segment = factory.SubFactory(SegmentFactory)
    system = factory.SubFactory(SystemFactory, campaign=factory.SelfAttribute("..segment.campaign"))
    text = factory.Sequence(lambda n: f"Source text no. {n}.")


class HitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Hit

    campaign = factory.SubFactory(CampaignFactory)
    task = HitTask.ASSESS
    number = factory.Sequence(lambda n: n + 1)


class HitSlotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HitSlot

    hit = factory.SubFactory(HitFactory)
    position = factory.Sequence(lambda n: n + 1)
    role = SlotRole.SYSTEM
    output = factory.LazyAttribute(
        lambda slot: OutputFactory(segment__document__campaign=slot.hit.campaign)
    )
    segment = factory.SelfAttribute("output.segment")
    shown_text = factory.SelfAttribute("output.text")


class WorkerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Worker

    platform = Platform.DIRECT
    external_id = factory.Sequence(lambda n: f"worker-{n}")


class AssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Assignment

    hit = factory.SubFactory(HitFactory)
    campaign = factory.SelfAttribute("hit.campaign")
    worker = factory.SubFactory(WorkerFactory)
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=2))


class JudgmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Judgment

    assignment = factory.SubFactory(AssignmentFactory)
    campaign = factory.SelfAttribute("assignment.campaign")
    worker = factory.SelfAttribute("assignment.worker")
    slot = factory.SubFactory(HitSlotFactory, hit=factory.SelfAttribute("..assignment.hit"))
    score = 50.0
