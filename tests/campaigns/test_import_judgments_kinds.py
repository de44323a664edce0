"""What each task kind provides for judgment imports (campaigns/importers/judgments/kinds.py):
its formats, in the order offered, and the generic answers for a kind without imports."""

import pytest
from django.apps import apps
from django.core.exceptions import AppRegistryNotReady

import campaigns.importers.judgments as judgment_importers
from campaigns.admin.judgment_import import ImportJudgmentsForm
from campaigns.importers.context import ParseContext
from campaigns.importers.judgments import judgment_formats
from campaigns.importers.judgments.kinds import judgment_import, kind_formats, kind_label
from campaigns.kinds import KindNotAvailable, registry
from tests.factories import CampaignFactory

ORDER = ("wmt-da", "appraise", "wmt08-rr", "wmt10-rr", "post-edits", "mturk-batch")


def test_the_formats_are_each_kinds_then_the_mturk_batch():
    formats = judgment_formats()
    assert tuple(formats) == ORDER
    assert {name: fmt.kind for name, fmt in formats.items()} == {
        "wmt-da": "direct_assessment",
        "appraise": "direct_assessment",
        "wmt08-rr": "ranking",
        "wmt10-rr": "ranking",
        "post-edits": "post_editing",
        "mturk-batch": None,
    }
    assert [name for name, fmt in formats.items() if fmt.standardised] == ["wmt-da"]


def test_each_kinds_formats_make_campaigns_of_that_kind():
    for implementation in registry:
        steps = implementation.judgment_import()
        if steps is None:
            continue
        assert steps.kind == implementation.kind
        assert steps.formats
        assert {fmt.kind for fmt in steps.formats} == {implementation.kind}
        assert all(fmt.parse is not None for fmt in steps.formats)
        assert implementation.import_hit_task in implementation.hit_tasks


def test_the_old_format_tables_are_still_importable():
    from campaigns.importers.judgments import FORMAT_HELP, FORMAT_LABELS, FORMATS

    assert FORMATS == ORDER
    assert list(FORMAT_LABELS) == list(FORMAT_HELP) == list(ORDER)
    assert judgment_importers.FORMAT_KINDS["wmt10-rr"] == "ranking"
    with pytest.raises(AttributeError):
        judgment_importers.NO_SUCH_TABLE  # noqa: B018


def test_a_kind_without_judgment_imports():
    with pytest.raises(KindNotAvailable, match="No judgment imports for 'translation'"):
        judgment_import("translation")
    assert kind_label("translation") == "translation"
    assert (
        kind_label("direct_assessment"),
        kind_label("ranking"),
        kind_label("post_editing"),
    ) == ("direct-assessment", "ranking", "post-editing")


def test_the_formats_are_not_known_before_the_apps_are_ready(monkeypatch):
    monkeypatch.setattr(apps, "ready", False)
    with pytest.raises(AppRegistryNotReady):
        kind_formats()


def test_the_admin_form_offers_the_formats_when_shown():
    choices = list(ImportJudgmentsForm().fields["format"].choices)
    assert choices == [(name, fmt.label) for name, fmt in judgment_formats().items()]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "needs_reference", "outputs_optional"),
    [
        ("direct_assessment", True, False),
        ("ranking", True, False),
        ("post_editing", True, False),
        ("translation", False, True),
    ],
)
def test_segment_imports_ask_the_kind_about_references_and_outputs(
    kind, needs_reference, outputs_optional
):
    context = ParseContext.for_campaign(CampaignFactory(kind=kind))
    assert (context.needs_reference, context.outputs_optional) == (
        needs_reference,
        outputs_optional,
    )
