"""Outputs for segments already in the campaign (a late system's): added while the campaign has
no HITs, when the rows repeat the stored texts, the outputs are new and the system ends up with
an output for every segment; refused with what to do otherwise, writing nothing."""

import io

import pytest

from campaigns.importers import ImportFailed, WmtFiles, run_import
from campaigns.models import Document, Output, Segment, System, TaskKind
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, SystemFactory

pytestmark = pytest.mark.django_db

HEADER = "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
SEGMENTS = [
    ("news-a", "1", "Der Hund bellt.", "The dog barks."),
    ("news-a", "2", "Er schläft.", "He sleeps."),
    ("news-b", "1", "Neue Regeln.", "New rules."),
]


def upload(text: str, name: str = "late.tsv") -> io.BytesIO:
    file = io.BytesIO(text.encode("utf-8"))
    file.name = name
    return file


def rows(system: str, segments=SEGMENTS, text: str = "{system} {doc} {seg}") -> list[str]:
    return [
        f"{doc}\t{seg}\t{source}\t{reference}\t{system}\t"
        + text.format(system=system, doc=doc, seg=seg)
        for doc, seg, source, reference in segments
    ]


def tsv(*lines: str) -> str:
    return HEADER + "".join(line + "\n" for line in lines)


def contents(campaign) -> dict:
    """Everything the campaign holds: documents, segments and outputs, exactly."""
    return {
        "documents": list(
            Document.objects.filter(campaign=campaign)
            .order_by("position")
            .values_list("external_id", "position")
        ),
        "segments": list(
            Segment.objects.filter(campaign=campaign)
            .order_by("document__position", "position")
            .values_list("document__external_id", "external_id", "position", "source")
        ),
        "systems": sorted(System.objects.filter(campaign=campaign).values_list("name", flat=True)),
        "outputs": sorted(
            Output.objects.filter(segment__campaign=campaign).values_list(
                "segment__document__external_id", "segment__external_id", "system__name", "text"
            )
        ),
    }


def problems_of(campaign, text: str) -> list[str]:
    before = contents(campaign)
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "tsv", upload(text))
    assert contents(campaign) == before, "a failed import must write nothing"
    return [str(problem) for problem in failure.value.problems]


@pytest.fixture
def campaign():
    """Three segments in two documents with the outputs of A and B (the first import)."""
    campaign = CampaignFactory(name="wmt-de-en", kind=TaskKind.RANKING)
    run_import(campaign, "tsv", upload(tsv(*rows("A"), *rows("B")), "first.tsv"))
    return campaign


def stored_outputs(*systems: str) -> list[tuple[str, str, str, str]]:
    return sorted(
        (doc, seg, system, f"{system} {doc} {seg}")
        for system in systems
        for doc, seg, _, _ in SEGMENTS
    )


def test_a_late_system_added_in_the_admin_gets_its_outputs_for_the_stored_segments(campaign):
    before = contents(campaign)
    SystemFactory(campaign=campaign, name="Lindenbaum")
    summary = run_import(campaign, "tsv", upload(tsv(*rows("Lindenbaum"))))
    assert summary.message == (
        "Imported 3 outputs of 1 system (0 new) for 3 segments already in the campaign from "
        "late.tsv."
    )
    assert (summary.documents, summary.segments, summary.outputs) == (0, 0, 3)
    after = contents(campaign)
    assert after["documents"] == before["documents"] == [("news-a", 1), ("news-b", 2)]
    assert after["segments"] == before["segments"]
    assert after["systems"] == ["A", "B", "Lindenbaum"]
    assert after["outputs"] == stored_outputs("A", "B", "Lindenbaum")


def test_a_system_the_campaign_does_not_have_is_unknown_until_added(campaign):
    assert problems_of(campaign, tsv(*rows("Lindenbaum"))) == [
        'late.tsv line 2, field "system": unknown system "Lindenbaum": campaign "wmt-de-en" has '
        "the systems A, B; fix the name in the file, or, for a new system, add it to the "
        "campaign first (the Systems section of its page) and import its outputs for every "
        "segment of the campaign"
    ]


def test_new_segments_and_a_late_system_in_one_file(campaign):
    SystemFactory(campaign=campaign, name="L")
    new = [("news-b", "2", "Alte Regeln.", "Old rules."), ("news-c", "1", "Ja.", "Yes.")]
    text = tsv(*rows("L"), *rows("A", new), *rows("B", new), *rows("L", new))
    summary = run_import(campaign, "tsv", upload(text))
    assert summary.message == (
        "Imported 1 new document, 2 segments and 9 outputs of 3 systems (0 new) from late.tsv. "
        "3 of the outputs are for 3 segments already in the campaign."
    )
    after = contents(campaign)
    assert after["documents"] == [("news-a", 1), ("news-b", 2), ("news-c", 3)]
    assert after["segments"] == [
        ("news-a", "1", 1, "Der Hund bellt."),
        ("news-a", "2", 2, "Er schläft."),
        ("news-b", "1", 1, "Neue Regeln."),
        ("news-b", "2", 2, "Alte Regeln."),
        ("news-c", "1", 1, "Ja."),
    ]
    assert len(after["outputs"]) == 15


def test_a_campaign_without_systems_takes_a_system_for_its_stored_segments():
    # A translation campaign imported sources only; the MT outputs come later.
    campaign = CampaignFactory(name="tr", kind=TaskKind.TRANSLATION)
    sources = [(doc, seg, source, "") for doc, seg, source, _ in SEGMENTS]
    run_import(campaign, "tsv", upload(tsv(*rows("", sources, text=""))))
    summary = run_import(campaign, "tsv", upload(tsv(*rows("online-A", sources))))
    assert summary.message == (
        "Imported 3 outputs of 1 system (1 new) for 3 segments already in the campaign from "
        "late.tsv."
    )
    assert contents(campaign)["outputs"] == stored_outputs("online-A")


def test_the_main_reference_alone_is_enough_when_more_are_stored():
    campaign = CampaignFactory(name="refs", kind=TaskKind.RANKING)
    header = "doc_id\tseg_id\tsource\treference\treference_2\tsystem\toutput\n"
    run_import(campaign, "tsv", upload(header + "d\t1\tQ\tR\tR2\tA\tOA\n"))
    SystemFactory(campaign=campaign, name="B")
    run_import(campaign, "tsv", upload(HEADER + "d\t1\tQ\tR\tB\tOB\n"))
    assert Segment.objects.get(campaign=campaign).references == ["R", "R2"]
    assert Output.objects.filter(segment__campaign=campaign).count() == 2


def test_every_problem_of_rows_for_stored_segments_at_once(campaign):
    SystemFactory(campaign=campaign, name="L")
    text = tsv(
        "news-a\t1\tDer Hund bellt!\tThe dog barks.\tL\tx",  # another source
        "news-a\t2\tEr schläft.\tHe is asleep.\tL\ty",  # another reference
        "news-b\t1\tNeue Regeln.\tNew rules.\tA\tz",  # A has this output already
    )
    assert problems_of(campaign, text) == [
        'late.tsv line 2, field "source": doc news-a seg 1 is already in campaign "wmt-de-en" '
        'with another source, "Der Hund bellt."; a row for a stored segment adds an output to '
        "it and must repeat its source and references exactly",
        'late.tsv line 2, field "system": system "L" would have no output for 1 of the 3 '
        'segments already in campaign "wmt-de-en": doc news-b seg 1; a system needs an output '
        'for every segment of the campaign, add rows of "L" for them to the file (their doc and '
        "seg ids, source and reference as stored)",
        'late.tsv line 3, field "reference": doc news-a seg 2 is already in campaign '
        '"wmt-de-en" with another reference, "He sleeps."; a row for a stored segment adds an '
        "output to it and must repeat its source and references exactly",
        'late.tsv line 4, field "system": duplicate id: doc news-b seg 1 of campaign '
        '"wmt-de-en" has an output of system "A" already; an import adds outputs, it never '
        "changes or repeats stored ones",
    ]


def test_a_system_without_outputs_needs_them_for_the_stored_segments_too(campaign):
    # Added in the admin, then only new segments imported: it would lack the stored ones.
    SystemFactory(campaign=campaign, name="L")
    new = [("news-c", "1", "Ja.", "Yes.")]
    text = tsv(*rows("A", new), *rows("B", new), *rows("L", new))
    assert problems_of(campaign, text) == [
        'late.tsv line 4, field "system": system "L" has no output for the 3 segments already '
        'in campaign "wmt-de-en"; a system needs an output for every segment of the campaign, '
        'add rows of "L" for them to the file (their doc and seg ids, source and reference as '
        "stored)"
    ]


def test_outputs_for_stored_segments_are_refused_once_hits_are_built(campaign):
    SystemFactory(campaign=campaign, name="L")
    HitFactory(campaign=campaign)
    assert problems_of(campaign, tsv(*rows("L"))) == [
        'late.tsv line 2, field "system": doc news-a seg 1 is already in campaign "wmt-de-en", '
        "whose HITs are built: outputs can be added to stored segments only before HITs are "
        "built, since built HITs never show them (3 outputs of this import are for stored "
        "segments); nobody has started its HITs yet, so delete them (the checklist's Delete HITs), "
        "import the file again and build the HITs again"
    ]


def test_once_workers_started_the_hits_a_new_campaign_is_the_way(campaign):
    hit = HitFactory(campaign=campaign)
    AssignmentFactory(hit=hit, campaign=campaign)
    assert problems_of(campaign, tsv(*rows("L"))) == [
        'late.tsv line 2, field "system": unknown system "L": campaign "wmt-de-en" has the '
        "systems A, B; fix the name in the file; a system cannot be added to a campaign whose "
        "HITs are built (they would never show its outputs): workers have started its HITs (or "
        "they are on MTurk), so they cannot be rebuilt; evaluate these outputs in a new "
        "campaign, importing the segments with the outputs of these systems and of the systems "
        "to compare them with"
    ]


def test_new_segments_are_still_added_to_a_campaign_with_hits(campaign):
    HitFactory(campaign=campaign)
    new = [("news-c", "1", "Ja.", "Yes.")]
    summary = run_import(campaign, "tsv", upload(tsv(*rows("A", new), *rows("B", new))))
    assert summary.message.startswith(
        "Imported 1 new document, 1 segment and 2 outputs of 2 systems (0 new) from late.tsv. "
        "This campaign's HITs were built before this import"
    )


def test_the_same_file_twice_changes_nothing_and_names_each_output(campaign):
    text = tsv(*rows("A")[:2])
    assert problems_of(campaign, text) == [
        'late.tsv line 2, field "system": duplicate id: doc news-a seg 1 of campaign '
        '"wmt-de-en" has an output of system "A" already; an import adds outputs, it never '
        "changes or repeats stored ones",
        'late.tsv line 3, field "system": duplicate id: doc news-a seg 2 of campaign '
        '"wmt-de-en" has an output of system "A" already; an import adds outputs, it never '
        "changes or repeats stored ones",
    ]


def wmt_files(systems: dict[str, str], references: str = "One\nTwo\nThree\n") -> WmtFiles:
    return WmtFiles(
        source=upload("Eins\nZwei\nDrei\n", "newstest.de"),
        references=[upload(references, "newstest.ref.en")],
        systems={name: upload(text, f"newstest.{name}.en") for name, text in systems.items()},
        docids=upload("a\na\nb\n", "newstest.docids"),
    )


def test_a_late_wmt_submission_with_another_reference_names_the_reference_line():
    campaign = CampaignFactory(name="wmt", kind=TaskKind.RANKING)
    run_import(campaign, "wmt", wmt_files({"A": "1A\n2A\n3A\n"}))
    SystemFactory(campaign=campaign, name="late")
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "wmt", wmt_files({"late": "1L\n2L\n3L\n"}, "One\nTwo!\nThree\n"))
    assert [str(problem) for problem in failure.value.problems] == [
        'newstest.ref.en line 2: doc a seg 2 is already in campaign "wmt" with another '
        'reference, "Two"; a row for a stored segment adds an output to it and must repeat its '
        "source and references exactly"
    ]
    assert Output.objects.filter(system__name="late").count() == 0


def test_a_late_wmt_submission_joins_the_stored_segments():
    campaign = CampaignFactory(name="wmt", kind=TaskKind.RANKING)
    files = wmt_files

    run_import(campaign, "wmt", files({"A": "1A\n2A\n3A\n", "B": "1B\n2B\n3B\n"}))
    SystemFactory(campaign=campaign, name="late")
    summary = run_import(campaign, "wmt", files({"late": "1L\n2L\n3L\n"}))
    assert summary.message == (
        "Imported 3 outputs of 1 system (0 new) for 3 segments already in the campaign from "
        "newstest.de, newstest.ref.en, newstest.late.en, newstest.docids."
    )
    assert sorted(
        Output.objects.filter(system__name="late").values_list("segment__external_id", "text")
    ) == [("1", "1L"), ("2", "2L"), ("3", "3L")]
    assert Segment.objects.filter(campaign=campaign).count() == 3


def test_the_checklist_flags_the_late_system_until_its_outputs_are_imported(campaign):
    from campaigns.actions import output_gaps

    SystemFactory(campaign=campaign, name="Lindenbaum")
    assert output_gaps(campaign).startswith(
        'System "Lindenbaum" has no outputs: HITs would leave it out'
    )
    run_import(campaign, "tsv", upload(tsv(*rows("Lindenbaum"))))
    assert output_gaps(campaign) == ""


def test_no_system_is_added_once_hits_are_built(campaign):
    from django.core.exceptions import ValidationError

    from campaigns.models import System

    hit = HitFactory(campaign=campaign)
    late = System(campaign=campaign, name="late")
    with pytest.raises(ValidationError) as error:
        late.full_clean()
    assert error.value.messages == [
        'Campaign "wmt-de-en" has HITs: a system added now would be in none of them, and no '
        "outputs can be imported for the segments they show. Nobody has started them: delete "
        "them first (the checklist's Delete HITs), then add "
        "the system, import its outputs for every segment and build the HITs again."
    ]
    AssignmentFactory(hit=hit, campaign=campaign)
    with pytest.raises(ValidationError) as error:
        late.full_clean()
    assert error.value.messages[0].endswith(
        "Workers have started them (or they are on MTurk), so they cannot be rebuilt: evaluate "
        "the system in a new campaign."
    )
    # A stored system is edited as before.
    stored = System.objects.get(campaign=campaign, name="A")
    stored.is_reference = True
    stored.full_clean()


def test_the_system_admin_refuses_a_system_added_after_the_hits(client, campaign):
    from django.contrib.auth.models import User
    from django.urls import reverse

    client.force_login(User.objects.create(username="root", is_staff=True, is_superuser=True))
    HitFactory(campaign=campaign)
    response = client.post(
        reverse("admin:campaigns_system_add"), {"campaign": campaign.pk, "name": "late"}
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        'Campaign "wmt-de-en" has HITs: a system added now would be in none of them, and no '
        "outputs can be imported for the segments they show. Nobody has started them: delete "
        "them first (the checklist's Delete HITs), then add "
        "the system, import its outputs for every segment and build the HITs again."
    ]
    assert not System.objects.filter(name="late").exists()
