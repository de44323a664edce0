"""Importing a ranking campaign's gold answers from a small TSV or CSV file (doc_id, seg_id,
best_system, worst_system): every problem with its file, line and field, nothing written on
any problem. Through import_gold_answers, the admin page and the command."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from analytics.models import CampaignAccess
from campaigns.actions import build_hits
from campaigns.importers.problems import ImportFailed
from campaigns.kinds.ranking.gold_import import import_gold_answers
from campaigns.models import GoldAnswer, Output, TaskKind
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db

SYSTEMS = ("UEDIN", "online-A", "online-B", "Lindenbaum")


def gold_campaign(segments: int = 6, **fields):
    """Document news-1 with segments 1..n, each translated by the four SYSTEMS."""
    campaign = CampaignFactory(
        **{"kind": TaskKind.RANKING, "name": "news", "outputs_per_set": 4, **fields}
    )
    document = DocumentFactory(campaign=campaign, external_id="news-1", position=1)
    systems = [SystemFactory(campaign=campaign, name=name) for name in SYSTEMS]
    for position in range(1, segments + 1):
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position}.",
            references=[f"Sentence {position}."],
        )
        for system in systems:
            OutputFactory(segment=segment, system=system, text=f"{system.name} says {position}.")
    return campaign


@pytest.fixture
def campaign():
    return gold_campaign()


def upload(text: str, name: str = "gold.tsv"):
    return SimpleUploadedFile(name, text.encode("utf-8"))


def problems_of(campaign, text: str, name: str = "gold.tsv", **options) -> list[str]:
    with pytest.raises(ImportFailed) as failure:
        import_gold_answers(campaign, upload(text, name), **options)
    return [str(problem) for problem in failure.value.problems]


def answers(campaign) -> list[tuple[str, str, str | None]]:
    return [
        (
            answer.segment.external_id,
            answer.best_output.system.name,
            answer.worst_output.system.name if answer.worst_output else None,
        )
        for answer in GoldAnswer.objects.filter(segment__campaign=campaign).order_by(
            "segment__position"
        )
    ]


def test_a_tsv_of_best_systems_becomes_gold_answers(campaign):
    summary = import_gold_answers(
        campaign,
        upload("doc_id\tseg_id\tbest_system\nnews-1\t1\tUEDIN\n\nnews-1\t4\tLindenbaum\n"),
    )
    assert summary.message == "Imported 2 gold answers from gold.tsv."
    assert answers(campaign) == [("1", "UEDIN", None), ("4", "Lindenbaum", None)]
    best = GoldAnswer.objects.get(segment__external_id="4").best_output
    assert best == Output.objects.get(segment__external_id="4", system__name="Lindenbaum")


def test_a_csv_with_worst_systems_in_any_column_order(campaign):
    text = (
        "\ufeffseg_id,worst_system,doc_id,best_system\r\n"
        "2,online-B,news-1,UEDIN\r\n"
        '3,"online-A",news-1,Lindenbaum\r\n'
    )
    import_gold_answers(campaign, upload(text, "gold.csv"))
    assert answers(campaign) == [("2", "UEDIN", "online-B"), ("3", "Lindenbaum", "online-A")]


def test_every_problem_is_named_with_file_line_and_field_and_nothing_is_written(campaign):
    GoldAnswer.objects.create(
        segment=campaign.segments.get(external_id="6"),
        best_output=Output.objects.get(segment__external_id="6", system__name="UEDIN"),
    )
    Output.objects.get(segment__external_id="5", system__name="online-B").delete()
    text = (
        "doc_id\tseg_id\tbest_system\tworst_system\n"
        "news-1\t1\tUEDIN\tonline-A\n"  # good
        "news-2\t1\tUEDIN\t\n"
        "news-1\t9\tUEDIN\t\n"
        "news-1\t2\tuedin\tonline-A\n"
        "news-1\t5\tonline-B\t\n"
        "news-1\t3\tUEDIN\tUEDIN\n"
        "news-1\t1\tonline-A\t\n"
        "news-1\t4\t\t\n"
        "news-1\t4\tUEDIN\n"
        "news-1\t6\tonline-A\t\n"
    )
    assert problems_of(campaign, text) == [
        'gold.tsv line 3, field "doc_id": the campaign has no document "news-2"',
        'gold.tsv line 4, field "seg_id": document "news-1" has no segment "9"',
        'gold.tsv line 5, field "best_system": the campaign has no system "uedin"; its systems '
        'are "Lindenbaum", "UEDIN", "online-A", "online-B"',
        'gold.tsv line 6, field "best_system": system "online-B" has no output for segment "5" '
        'of document "news-1"',
        'gold.tsv line 7, field "worst_system": "UEDIN" is both the best and the worst system; '
        "name two different systems",
        'gold.tsv line 8, field "seg_id": segment "1" of document "news-1" is given twice: on '
        "line 2 and here",
        'gold.tsv line 9, field "best_system": empty best_system; every row names the system '
        "whose output is best",
        "gold.tsv line 10: 3 fields, and the header row names 4 columns",
        'gold.tsv line 11, field "seg_id": segment "6" of document "news-1" already has a gold '
        "answer; delete it under Gold answers, or import with \"Replace the campaign's gold "
        'answers"',
    ]
    assert answers(campaign) == [("6", "UEDIN", None)]


@pytest.mark.parametrize(
    ("header", "problems"),
    [
        (
            "doc_id\tsegment\tbest_system",
            [
                'gold.tsv line 1, field "segment": unknown column "segment"; the columns are '
                "doc_id, seg_id, best_system, worst_system",
                'gold.tsv line 1: missing column "seg_id"; the columns are doc_id, seg_id, '
                "best_system, worst_system",
            ],
        ),
        (
            "doc_id\tseg_id\tbest_system\tbest_system",
            ['gold.tsv line 1, field "best_system": column "best_system" is given twice'],
        ),
        (
            "",
            [
                "gold.tsv line 1: no header row; the first line names the columns: doc_id, "
                "seg_id, best_system, worst_system"
            ],
        ),
    ],
)
def test_the_header_names_the_columns(campaign, header, problems):
    assert problems_of(campaign, header + "\nnews-1\t1\tUEDIN\n") == problems


def test_files_that_are_not_gold_answers(campaign):
    assert problems_of(campaign, "doc_id\tseg_id\tbest_system\n") == [
        "gold.tsv: no gold answers: the file has a header row only"
    ]
    assert problems_of(campaign, "doc_id,seg_id,best_system\n", name="gold.xlsx") == [
        "gold.xlsx: cannot tell the format from the file name; name it .tsv or .csv, or "
        "choose the format"
    ]
    assert problems_of(campaign, "") == [
        "gold.tsv line 1: no header row; the first line names the columns: doc_id, seg_id, "
        "best_system, worst_system"
    ]
    latin1 = SimpleUploadedFile(
        "gold.tsv", "doc_id\tseg_id\tbest_system\nnews-1\t1\tBär\n".encode("latin-1")
    )
    with pytest.raises(ImportFailed) as failure:
        import_gold_answers(campaign, latin1)
    assert [str(p) for p in failure.value.problems] == [
        "gold.tsv line 2: not UTF-8 text: byte 0xE4 at byte 11 of the line cannot be decoded; "
        "save the file as UTF-8 and import it again"
    ]


def test_best_and_worst_gold_needs_the_worst_system(campaign):
    campaign.ranking_settings.gold_scheme = "best_worst"
    campaign.ranking_settings.save()
    text = "doc_id,seg_id,best_system,worst_system\nnews-1,1,UEDIN,\n"
    assert problems_of(campaign, text, name="gold.csv") == [
        'gold.csv line 2, field "worst_system": empty worst_system; the campaign\'s gold scheme '
        "is best and worst, whose gold sets show the known-worst output"
    ]


def test_a_worst_output_with_the_best_output_s_text_is_refused(campaign):
    Output.objects.filter(segment__external_id="1", system__name="online-A").update(
        text="UEDIN says 1."
    )
    text = "doc_id,seg_id,best_system,worst_system\nnews-1,1,UEDIN,online-A\n"
    assert problems_of(campaign, text, name="gold.csv") == [
        'gold.csv line 2, field "worst_system": the outputs of "UEDIN" and "online-A" for '
        'segment "1" of document "news-1" are the same text, so no worker can rank one best '
        "and the other worst"
    ]


def test_replace_swaps_the_campaign_s_gold_answers_for_the_file_s(campaign):
    import_gold_answers(campaign, upload("doc_id\tseg_id\tbest_system\nnews-1\t1\tUEDIN\n"))
    text = "doc_id\tseg_id\tbest_system\nnews-1\t1\tonline-A\nnews-1\t2\tonline-B\n"
    dry = import_gold_answers(campaign, upload(text), replace=True, dry_run=True)
    assert dry.message == "Checked gold.tsv: no problems. Importing would add 2 gold answers."
    assert answers(campaign) == [("1", "UEDIN", None)]
    summary = import_gold_answers(campaign, upload(text), replace=True)
    assert summary.message == (
        "Imported 2 gold answers from gold.tsv, replacing the campaign's 1 earlier ones."
    )
    assert answers(campaign) == [("1", "online-A", None), ("2", "online-B", None)]


def test_built_hits_keep_their_gold_sets_and_the_message_says_so():
    campaign = gold_campaign(segments=12, gold_rate=0)
    build_hits(campaign)
    summary = import_gold_answers(
        campaign, upload("doc_id\tseg_id\tbest_system\nnews-1\t1\tUEDIN\n")
    )
    assert summary.message == (
        "Imported 1 gold answer from gold.tsv. The HITs already built keep the gold sets they "
        "were built with: rebuild them (possible until a worker starts one) to use these."
    )


def test_only_ranking_campaigns_take_gold_answers():
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, name="da")
    assert problems_of(campaign, "doc_id\tseg_id\tbest_system\nnews-1\t1\tUEDIN\n") == [
        'gold.tsv: campaign "da" is a Direct assessment (slider) campaign; gold answers are '
        "for ranking campaigns"
    ]


def test_imported_gold_answers_build_gold_sets():
    campaign = gold_campaign(segments=12)
    rows = "".join(f"news-1\t{n}\tLindenbaum\n" for n in range(1, 7))
    import_gold_answers(campaign, upload("doc_id\tseg_id\tbest_system\n" + rows))
    assert build_hits(campaign) > 0
    gold = campaign.hits.filter(slots__role="gold").values_list(
        "slots__output__system__name", flat=True
    )
    assert set(gold) == {"Lindenbaum"}


# --- the admin page ----------------------------------------------------------------------------


def import_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_gold_import", args=[campaign.pk])


@pytest.fixture
def owner(django_user_model, campaign):
    user = django_user_model.objects.create_user("owner", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=[
                "view_campaign",
                "change_campaign",
                "add_goldanswer",
                "change_goldanswer",
                "view_goldanswer",
                "delete_goldanswer",
            ]
        )
    )
    campaign.owner = user
    campaign.save()
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_page_imports_and_goes_back_to_the_campaign_s_gold_answers(owner, campaign):
    page = owner.get(import_url(campaign))
    assert page.status_code == 200
    assert "Check and import" in page.content.decode()
    response = owner.post(
        import_url(campaign),
        {"file": upload("doc_id\tseg_id\tbest_system\nnews-1\t3\tonline-A\n"), "format": ""},
        follow=True,
    )
    assert response.redirect_chain == [
        (
            reverse("admin:campaigns_goldanswer_changelist")
            + f"?segment__campaign__id__exact={campaign.pk}",
            302,
        )
    ]
    assert [str(m) for m in response.context["messages"]] == [
        "Imported 1 gold answer from gold.tsv."
    ]
    assert answers(campaign) == [("3", "online-A", None)]
    # The list, filtered to the campaign, offers the import (and shows names, not ids).
    html = response.content.decode()
    assert f'href="{import_url(campaign)}"' in html
    assert "doc news-1, seg 3: Satz 3." in html
    assert "online-A: online-A says 3." in html


def test_the_admin_page_lists_every_problem(owner, campaign):
    response = owner.post(
        import_url(campaign),
        {"file": upload("doc_id,seg_id,best_system\nnews-1,3,nobody\n", "gold.csv")},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 problem found; nothing was imported." in html
    assert (
        "<td>gold.csv</td>\n          <td>2</td>\n          <td>best_system</td>\n"
        '          <td class="message">the campaign has no system &quot;nobody&quot;; its '
        "systems are &quot;Lindenbaum&quot;, &quot;UEDIN&quot;, &quot;online-A&quot;, "
        "&quot;online-B&quot;</td>"
    ) in html
    assert not GoldAnswer.objects.exists()


def test_who_may_import(owner, campaign, django_user_model):
    reader = django_user_model.objects.create_user("reader", password="pw", is_staff=True)
    reader.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    CampaignAccess.objects.create(campaign=campaign, user=reader, level="read")
    client = Client()
    client.force_login(reader)
    assert client.get(import_url(campaign)).status_code == 403
    stranger = django_user_model.objects.create_user("stranger", password="pw", is_staff=True)
    stranger.user_permissions.add(*reader.user_permissions.all())
    client.force_login(stranger)
    assert client.get(import_url(campaign)).status_code == 404
    da = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, owner=campaign.owner)
    assert owner.get(import_url(da)).status_code == 404


# --- the command -------------------------------------------------------------------------------


def test_the_command_imports_and_reports_problems(campaign, tmp_path, capsys):
    good = tmp_path / "gold.tsv"
    good.write_text("doc_id\tseg_id\tbest_system\nnews-1\t2\tUEDIN\n", encoding="utf-8")
    call_command("import_gold_answers", str(campaign.pk), str(good))
    assert capsys.readouterr().out == "Imported 1 gold answer from gold.tsv.\n"
    bad = tmp_path / "bad.csv"
    bad.write_text("doc_id,seg_id,best_system\nnews-1,2,UEDIN\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        call_command("import_gold_answers", "news", str(bad))
    assert caught.value.returncode == 1
    assert capsys.readouterr().err.splitlines() == [
        "1 problem found; nothing was imported.",
        'bad.csv line 2, field "seg_id": segment "2" of document "news-1" already has a gold '
        "answer; delete it under Gold answers, or import with \"Replace the campaign's gold "
        'answers"',
    ]
    call_command("import_gold_answers", "news", str(bad), "--replace")
    assert answers(campaign) == [("2", "UEDIN", None)]
