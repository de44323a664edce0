"""The admin's "Import segments" page: upload, see every problem, or import and go back."""

import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from analytics.models import AccessLevel, CampaignAccess
from campaigns.models import Document, Output, Segment, System, TaskKind
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

GOOD_TSV = (
    "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
    "d1\t1\tEins <b>\tOne & one\tA\tone-A\n"
    "d1\t1\tEins <b>\tOne & one\tB\tone-B\n"
)


def counts(campaign):
    return (
        Document.objects.filter(campaign=campaign).count(),
        Segment.objects.filter(campaign=campaign).count(),
        System.objects.filter(campaign=campaign).count(),
        Output.objects.filter(segment__campaign=campaign).count(),
    )


def tsv_upload(text: str, name: str = "demo.tsv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/tab-separated-values")


@pytest.fixture
def campaign():
    return CampaignFactory(name="news", kind=TaskKind.RANKING)


@pytest.fixture
def admin_client(client):
    # No password: hashing one costs more than the whole test.
    user = User.objects.create(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    return client


def url(campaign) -> str:
    return reverse("admin:campaigns_campaign_import", args=[campaign.pk])


def test_page_shows_the_form_and_the_format_help(admin_client, campaign):
    response = admin_client.get(url(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Import segments into news" in html
    assert 'enctype="multipart/form-data"' in html
    assert "Appraise batch JSON" in html
    assert 'name="systems"' in html and "multiple" in html


def test_good_upload_imports_and_redirects_to_the_campaign(admin_client, campaign):
    response = admin_client.post(url(campaign), {"format": "tsv", "file": tsv_upload(GOOD_TSV)})
    change_url = reverse("admin:campaigns_campaign_change", args=[campaign.pk])
    assert response.status_code == 302
    assert response["Location"] == change_url
    assert counts(campaign) == (1, 1, 2, 2)
    assert Segment.objects.get().references == ["One & one"]
    page = admin_client.get(change_url)
    assert [str(m) for m in page.context["messages"]] == [
        "Imported 1 new document, 1 segment and 2 outputs of 2 systems (2 new) from demo.tsv."
    ]


def test_bad_upload_lists_the_problems_and_writes_nothing(admin_client, campaign):
    bad = GOOD_TSV + "d1\t2\tZwei\t\tA\t<script>x</script>\n"
    response = admin_client.post(url(campaign), {"format": "tsv", "file": tsv_upload(bad)})
    assert response.status_code == 200
    assert [str(problem) for problem in response.context["problems"]] == [
        'demo.tsv line 4, field "reference": empty reference; a ranking campaign needs a '
        "reference for every segment",
        'demo.tsv line 4, field "system": missing output: system "B" has no output for doc d1 '
        "seg 2",
    ]
    html = response.content.decode()
    assert "2 problems found; nothing was imported." in html
    assert "<script>x</script>" not in html
    assert counts(campaign) == (0, 0, 0, 0)


def test_a_problem_of_the_whole_file_names_the_file_and_says_it_has_no_line(admin_client, campaign):
    """A system of the campaign with no output anywhere in the file is the file's problem, not
    one line's: the table named no file and no line for it (and said "Fix them" of one)."""
    System.objects.create(campaign=campaign, name="A")
    System.objects.create(campaign=campaign, name="B")
    only_a = (
        "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
        "d1\t1\tEins\tOne\tA\tone-A\n"
        "d1\t2\tZwei\tTwo\tA\ttwo-A\n"
    )
    response = admin_client.post(url(campaign), {"format": "tsv", "file": tsv_upload(only_a)})
    assert response.status_code == 200
    html = response.content.decode()
    assert "1 problem found; nothing was imported.\n      Fix it and upload again." in html
    assert (
        "<td>demo.tsv</td>\n          <td>(whole file)</td>\n          <td>system</td>\n"
        '          <td class="message">system &quot;B&quot; of campaign &quot;news&quot; has no '
        "output in this import; every new segment needs one output of every system</td>"
    ) in html
    assert counts(campaign) == (0, 0, 2, 0)


def test_an_empty_file_gets_one_message_not_also_choose_a_file(admin_client, campaign):
    response = admin_client.post(url(campaign), {"format": "tsv", "file": tsv_upload("")})
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == ["The submitted file is empty."]
    assert counts(campaign) == (0, 0, 0, 0)


def test_wmt_upload_with_several_system_files(admin_client, campaign):
    def upload(name, text):
        return SimpleUploadedFile(name, text.encode("utf-8"))

    response = admin_client.post(
        url(campaign),
        {
            "format": "wmt",
            "source": upload("test.de", "Eins\nZwei\n"),
            "references": [upload("test.ref.en", "One\nTwo\n"), upload("test.ref2.en", "1\n2\n")],
            "systems": [
                upload("test.de-en.UEDIN.1", "one U\ntwo U\n"),
                upload("test.de-en.online-B.0", "one B\ntwo B\n"),
            ],
        },
    )
    assert response.status_code == 302
    assert counts(campaign) == (1, 2, 2, 4)
    assert sorted(System.objects.values_list("name", flat=True)) == ["UEDIN.1", "online-B.0"]
    assert Segment.objects.get(external_id="2").references == ["Two", "2"]


def test_form_asks_for_the_files_the_format_needs(admin_client, campaign):
    response = admin_client.post(url(campaign), {"format": "wmt"})
    assert response.status_code == 200
    assert response.context["form"].errors == {"source": ["The WMT format needs a source file."]}
    response = admin_client.post(url(campaign), {"format": "csv"})
    assert response.context["form"].errors == {"file": ["Choose the file to import."]}


def test_a_campaign_not_shared_is_not_found_and_a_read_only_one_is_refused(client, campaign):
    """analytics.access: a campaign not shared with the user answers 404, as if it did not
    exist; one shared for reading answers 403 to the import, which changes it."""
    user = User.objects.create(username="viewer", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(user)
    upload = {"format": "tsv", "file": tsv_upload(GOOD_TSV)}
    assert client.post(url(campaign), upload).status_code == 404
    missing = reverse("admin:campaigns_campaign_import", args=[10**6])
    assert client.post(missing, {"format": "tsv", "file": tsv_upload(GOOD_TSV)}).status_code == 404

    CampaignAccess.objects.create(campaign=campaign, user=user, level=AccessLevel.READ)
    response = client.post(url(campaign), {"format": "tsv", "file": tsv_upload(GOOD_TSV)})

    assert response.status_code == 403
    assert counts(campaign) == (0, 0, 0, 0)


def test_anonymous_is_sent_to_the_login_page(client, campaign):
    response = client.get(url(campaign))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


# --- Issue 17: the page tells TSV from CSV (and JSON lines, Appraise) by itself ------------------

GOOD_CSV = (
    "doc_id,seg_id,source,reference,system,output\n"
    'd1,1,"Eins <b>","One & one",A,one-A\n'
    'd1,1,"Eins <b>","One & one",B,one-B\n'
)


def test_the_format_is_detected_by_default(admin_client, campaign):
    page = admin_client.get(url(campaign)).content.decode()
    assert 'value="auto"' in page and "checked" in page.split('value="auto"')[1][:40]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("segments.tsv", GOOD_TSV),  # by the name
        ("segments.csv", GOOD_CSV),
        ("segments.txt", GOOD_TSV),  # by the header line: a tab
        ("export", GOOD_CSV),  # a comma and no tab
        ("segments.txt", "\ufeff" + GOOD_CSV),  # a byte-order mark first
        ("segments.tsv", GOOD_CSV),  # a comma-separated header wins over the name
        ("excel.csv", GOOD_CSV.replace(",", ";")),  # Excel's CSV in many languages
    ],
)
def test_tsv_and_csv_are_told_apart_by_name_else_by_content(admin_client, campaign, name, text):
    response = admin_client.post(url(campaign), {"format": "auto", "file": tsv_upload(text, name)})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert counts(campaign) == (1, 1, 2, 2)
    assert Segment.objects.get().references == ["One & one"]


def test_a_chosen_format_the_header_contradicts_is_one_problem_saying_which(admin_client, campaign):
    response = admin_client.post(
        url(campaign), {"format": "tsv", "file": tsv_upload(GOOD_CSV, "segments.tsv")}
    )
    assert response.status_code == 200
    assert [str(problem) for problem in response.context["problems"]] == [
        "segments.tsv line 1: the header is not tab-separated but comma-separated (doc_id, "
        "seg_id, source, reference, system, output): this looks like a CSV file; import it as "
        "CSV (the format on the import page, --format csv with manage.py import_segments)"
    ]
    assert counts(campaign) == (0, 0, 0, 0)


def test_a_file_nothing_tells_the_format_of_asks_for_it(admin_client, campaign):
    response = admin_client.post(
        url(campaign), {"format": "auto", "file": tsv_upload("just some words\n", "notes")}
    )
    assert response.status_code == 200
    assert response.context["form"].errors["format"] == [
        "Cannot tell the format of notes: its name ends in none of .tsv, .csv, .jsonl, .json and "
        "its first line has no tab, comma or semicolon. Choose the format."
    ]
    assert counts(campaign) == (0, 0, 0, 0)


def test_format_for_content_reads_the_first_line():
    from campaigns.importers import format_for_content

    assert format_for_content("a.jsonl", b"doc_id\tseg") == "jsonl"  # the name first
    assert format_for_content("a", b'\n{"doc_id": "d1"}\n') == "jsonl"
    assert format_for_content("a", b'[{"items": []}]') == "appraise"
    assert format_for_content("a", b"doc_id\tseg_id, with a comma\n") == "tsv"
    assert format_for_content("a", b"doc_id,seg_id\n1\t2\n") == "csv"  # only the header counts
    assert format_for_content("a", b"") is None
    assert format_for_content("a", b"doc_id;seg_id;source\n") == "csv"


def test_format_for_content_takes_the_header_s_separator_over_a_tsv_or_csv_name():
    from campaigns.importers import format_for_content

    comma = b"doc_id,seg_id,source,reference,system,output\nd,1,Q\tx,R,S,O\n"
    assert format_for_content("excel.tsv", comma) == "csv"
    assert format_for_content("excel.csv", b"doc_id;seg_id;source;reference\n") == "csv"
    assert format_for_content("data.csv", b"doc_id\tseg_id\tsource\n") == "tsv"
    # A header that tells nothing leaves the name's format; .jsonl and .json names always win.
    assert format_for_content("odd.tsv", b"a,b,c\n") == "tsv"
    assert format_for_content("rows.jsonl", comma) == "jsonl"
