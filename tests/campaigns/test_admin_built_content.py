"""Segments and outputs that built HITs show cannot be edited in the admin: a built HIT's slot
keeps the text it was built with, so an edit saved "successfully" reached no worker, and the
admin then showed a text nobody judged (found by an outside check of the demo)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import HitSlot, Output, Segment
from tests.factories import HitSlotFactory, OutputFactory

pytestmark = pytest.mark.django_db

OUTPUT_NOTE = (
    "This output is shown in HITs already built: workers judge it as it was built, and the "
    "judgments, exports and scores refer to it, so it can no longer be changed. To evaluate a "
    "corrected text, import it into a new campaign."
)


def change_url(obj) -> str:
    return reverse(f"admin:campaigns_{obj._meta.model_name}_change", args=[obj.pk])


def output_form(output: Output, text: str) -> dict[str, str]:
    return {"system": str(output.system_id), "segment": str(output.segment_id), "text": text}


def test_an_output_in_a_built_hit_is_read_only_and_says_why(admin_client):
    slot = HitSlotFactory()
    output = slot.output
    page = admin_client.get(change_url(output)).content.decode()
    assert OUTPUT_NOTE in page
    assert 'name="text"' not in page

    response = admin_client.post(change_url(output), output_form(output, "<script>x</script>"))

    assert response.status_code == 302
    output.refresh_from_db()
    assert output.text == HitSlot.objects.get(pk=slot.pk).shown_text != "<script>x</script>"
    # Deleting it would take the slot and its judgments with it.
    delete = reverse("admin:campaigns_output_delete", args=[output.pk])
    assert admin_client.get(delete).status_code == 403


def test_an_output_no_hit_shows_yet_can_still_be_corrected(admin_client):
    output = OutputFactory(text="A typo here.")
    page = admin_client.get(change_url(output)).content.decode()
    assert "HITs already built" not in page and 'name="text"' in page

    response = admin_client.post(change_url(output), output_form(output, "No typo here."))

    assert response.status_code == 302
    output.refresh_from_db()
    assert output.text == "No typo here."


def test_a_segment_in_a_built_hit_and_its_outputs_are_read_only(admin_client):
    slot = HitSlotFactory()
    segment = slot.segment
    page = admin_client.get(change_url(segment)).content.decode()
    assert "This segment is shown in HITs already built" in page
    assert 'name="source"' not in page
    assert 'name="outputs-0-text"' not in page

    before = Segment.objects.values().get(pk=segment.pk)
    response = admin_client.post(
        change_url(segment),
        {
            "campaign": str(segment.campaign_id),
            "document": str(segment.document_id),
            "external_id": "changed",
            "position": "9",
            "source": "changed",
            "references": '["changed"]',
            "outputs-TOTAL_FORMS": "0",
            "outputs-INITIAL_FORMS": "0",
        },
    )

    assert response.status_code == 302
    assert Segment.objects.values().get(pk=segment.pk) == before


def test_the_changelists_bulk_delete_refuses_a_selection_built_hits_show(admin_client):
    """ "Delete selected" asks no row its own permission: a selection with one output that a
    built HIT shows deletes nothing (the slot and its judgments would go with it)."""
    shown = HitSlotFactory().output
    unused = OutputFactory()
    changelist = reverse("admin:campaigns_output_changelist")
    form = {"action": "delete_selected", "_selected_action": [shown.pk, unused.pk], "post": "yes"}

    assert admin_client.post(changelist, form).status_code == 403
    assert sorted(Output.objects.values_list("pk", flat=True)) == sorted([shown.pk, unused.pk])
    assert HitSlot.objects.count() == 1

    admin_client.post(changelist, {**form, "_selected_action": [unused.pk]})
    assert list(Output.objects.values_list("pk", flat=True)) == [shown.pk]
