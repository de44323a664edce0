"""factory-boy factories: one per model, valid by default, shared by every test module."""

from datetime import timedelta

import factory
from django.utils import timezone

from campaigns.kinds import registry as kind_registry
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
from campaigns.pay import offered_reward
from judgments.models import Assignment, Judgment, Platform, Worker


class CampaignFactory(factory.django.DjangoModelFactory):
    """A campaign with its kind's settings row. Settings of the kind may be passed as keyword
    arguments (``CampaignFactory(kind=TaskKind.RANKING, outputs_per_set=4)``); they go to the
    settings model (campaigns/kinds/<kind>/models.py), the rest to Campaign."""

    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"campaign {n}")
    kind = TaskKind.DIRECT_ASSESSMENT
    status = CampaignStatus.ACTIVE
    source_language = "de"
    target_language = "en"

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        implementation = kind_registry.get(kwargs["kind"])
        if implementation is None:  # an unknown kind: let the database refuse it
            return super()._create(model_class, *args, **kwargs)
        settings_model = implementation.settings_model
        setting_names = (
            {f.name for f in settings_model._meta.concrete_fields} - {"campaign"}
            | {f.attname for f in settings_model._meta.concrete_fields}
            if settings_model is not None
            else set()
        )
        settings = {name: kwargs.pop(name) for name in list(kwargs) if name in setting_names}
        if implementation.kind == TaskKind.DIRECT_ASSESSMENT:
            settings.setdefault("assessment_mode", AssessmentMode.ADEQUACY)
        campaign = super()._create(model_class, *args, **kwargs)
        if settings_model is not None:
            row = settings_model.objects.create(campaign=campaign, **settings)
            setattr(campaign, implementation.settings_accessor, row)
        elif settings:
            raise TypeError(f"{campaign.kind} campaigns have no settings {sorted(settings)}")
        return campaign


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
    # What the hand-out stores: the HIT's own reward, else the campaign's (campaigns.pay).
    reward = factory.LazyAttribute(lambda o: offered_reward(o.hit.campaign.reward, o.hit.reward))


class JudgmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Judgment

    assignment = factory.SubFactory(AssignmentFactory)
    campaign = factory.SelfAttribute("assignment.campaign")
    worker = factory.SelfAttribute("assignment.worker")
    slot = factory.SubFactory(HitSlotFactory, hit=factory.SelfAttribute("..assignment.hit"))
    score = 50.0
