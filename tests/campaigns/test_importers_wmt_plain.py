"""WMT plain-text imports: line-aligned files, line numbers as segment ids, exact text."""

import io

import pytest

from campaigns.importers import ImportFailed, WmtFiles, parse_system_args, run_import, system_names
from campaigns.models import Document, Output, Segment, System, TaskKind
from tests.factories import CampaignFactory, SystemFactory

pytestmark = pytest.mark.django_db


def upload(name: str, content: str | bytes) -> io.BytesIO:
    file = io.BytesIO(content.encode("utf-8") if isinstance(content, str) else content)
    file.name = name
    return file


def counts(campaign):
    return (
        Document.objects.filter(campaign=campaign).count(),
        Segment.objects.filter(campaign=campaign).count(),
        System.objects.filter(campaign=campaign).count(),
        Output.objects.filter(segment__campaign=campaign).count(),
    )


def problems_of(campaign, files: WmtFiles) -> list[str]:
    before = counts(campaign)
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "wmt", files)
    assert counts(campaign) == before
    return [str(problem) for problem in failure.value.problems]


@pytest.fixture
def campaign():
    return CampaignFactory(kind=TaskKind.RANKING)


# Characters str.splitlines() would split on, all legitimately inside WMT segments.
ODD = "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i\rj"


def test_good_files_with_docids_crlf_and_odd_separators(campaign):
    files = WmtFiles(
        source=upload("newstest.de", "Eins\r\nZwei <b>\r\nDrei\r\n" + ODD + "\r\n"),
        references=[
            upload("newstest.ref-A.en", "One\nTwo & two\nThree\nFour\n"),
            upload("newstest.ref-B.en", "Uno\nDos\nTres\nCuatro"),  # no final line break
        ],
        systems={
            "online-A": upload("newstest.online-A.en", "1A\n2A\n3A\n4A\n"),
            "UEDIN": upload("newstest.UEDIN.en", "1U\n2U\n3U\n" + ODD + "\n"),
        },
        docids=upload("newstest.docids", "doc-x\ndoc-x\ndoc-y\ndoc-y\n"),
    )
    summary = run_import(campaign, "wmt", files)

    assert (summary.documents, summary.segments, summary.systems, summary.outputs) == (2, 4, 2, 8)
    assert summary.files == (
        "newstest.de",
        "newstest.ref-A.en",
        "newstest.ref-B.en",
        "newstest.online-A.en",
        "newstest.UEDIN.en",
        "newstest.docids",
    )
    segments = list(
        Segment.objects.order_by("document__position", "position").values_list(
            "document__external_id", "external_id", "position", "source", "references"
        )
    )
    assert segments == [
        ("doc-x", "1", 1, "Eins", ["One", "Uno"]),
        ("doc-x", "2", 2, "Zwei <b>", ["Two & two", "Dos"]),
        ("doc-y", "3", 1, "Drei", ["Three", "Tres"]),
        ("doc-y", "4", 2, ODD, ["Four", "Cuatro"]),
    ]
    assert Output.objects.get(system__name="UEDIN", segment__external_id="4").text == ODD
    assert Output.objects.get(system__name="online-A", segment__external_id="2").text == "2A"


def test_without_docids_everything_is_one_document_named_after_the_source(campaign):
    files = WmtFiles(
        source=upload("src.de", "Eins\nZwei\n"),
        references=[upload("ref.en", "One\nTwo\n")],
        systems={"S": upload("S.en", "1\n2\n")},
    )
    run_import(campaign, "wmt", files)
    assert list(Document.objects.values_list("external_id", "position")) == [("src.de", 1)]
    assert list(Segment.objects.values_list("external_id", "position")) == [("1", 1), ("2", 2)]


def test_paths_work_as_well_as_uploads(campaign, tmp_path):
    (tmp_path / "src.de").write_text("Eins\n")
    (tmp_path / "ref.en").write_text("One\n")
    (tmp_path / "sys.en").write_text("1\n")
    files = WmtFiles(
        source=tmp_path / "src.de",
        references=[str(tmp_path / "ref.en")],
        systems={"S": tmp_path / "sys.en"},
    )
    assert run_import(campaign, "wmt", files).outputs == 1


def test_mismatched_line_counts_name_files_and_counts(campaign):
    files = WmtFiles(
        source=upload("src.de", "a\nb\nc\n"),
        references=[upload("ref.en", "A\nB\n")],
        systems={"S": upload("S.en", "1\n2\n3\n4\n"), "T": upload("T.en", "1\n2\n3\n")},
    )
    assert problems_of(campaign, files) == [
        "ref.en: 2 lines, but the source src.de has 3; the reference file needs exactly one "
        "line per source line",
        "S.en: 4 lines, but the source src.de has 3; the system file needs exactly one line per "
        "source line",
    ]


def test_three_bad_files_are_all_reported_at_once(campaign):
    # The document-id file used to hide everything else ("1 problem found").
    files = WmtFiles(
        source=upload("src.de", "a\nb\nc\n"),
        references=[upload("ref.en", "A\n\nC\n")],
        systems={"S": upload("S.en", "1\n2\n"), "T": upload("T.en", "1\n2\n3\n")},
        docids=upload("src.docids", "d1\n\n"),
    )
    assert problems_of(campaign, files) == [
        "ref.en line 2: empty segment; every reference needs text",
        "S.en: 2 lines, but the source src.de has 3; the system file needs exactly one line per "
        "source line",
        "src.docids: 2 lines, but the source src.de has 3; the document-id file needs exactly "
        "one line per source line",
        "src.docids line 2: empty document id",
    ]


def test_without_docids_a_short_system_file_and_a_bad_reference_are_both_reported(campaign):
    files = WmtFiles(
        source=upload("src.de", "a\nb\n"),
        references=[upload("ref.en", b"A\nB\xff\n")],
        systems={"S": upload("S.en", "1\n\n2\n")},
    )
    assert problems_of(campaign, files) == [
        "ref.en line 2: not UTF-8 text: byte 0xFF at byte 2 of the line cannot be decoded; "
        "save the file as UTF-8 and import it again",
        "S.en: 3 lines, but the source src.de has 2; the system file needs exactly one line per "
        "source line",
        "S.en line 2: empty segment; every output needs text",
    ]


def test_an_unreadable_source_still_lets_the_other_files_be_checked(campaign):
    files = WmtFiles(
        source=upload("src.de", b"\xff\xfea\x00"),
        references=[upload("ref.en", "A\n \n")],
        systems={"S": upload("S.en", "1\n2\n")},
        docids=upload("src.docids", "d\n\n"),
    )
    assert problems_of(campaign, files) == [
        "src.de line 1: not UTF-8 text: the file starts with a UTF-16 byte-order mark; save it "
        "as UTF-8 and import it again",
        "ref.en line 2: empty segment; every reference needs text",
        "src.docids line 2: empty document id",
    ]


def test_empty_lines_are_empty_segments(campaign):
    files = WmtFiles(
        source=upload("src.de", "a\n\nc\n"),
        references=[upload("ref.en", "A\nB\n \n")],
        systems={"S": upload("S.en", "1\n2\n\r\n")},
    )
    assert problems_of(campaign, files) == [
        "src.de line 2: empty segment; every source needs text",
        "ref.en line 3: empty segment; every reference needs text",
        "S.en line 3: empty segment; every output needs text",
    ]


def test_bad_encoding_in_a_system_file(campaign):
    files = WmtFiles(
        source=upload("src.de", "a\nb\n"),
        references=[upload("ref.en", "A\nB\n")],
        systems={"S": upload("S.en", b"one\ntw\xff\xfeo\n")},
    )
    assert problems_of(campaign, files) == [
        "S.en line 2: not UTF-8 text: byte 0xFF at byte 3 of the line cannot be decoded; save "
        "the file as UTF-8 and import it again"
    ]


def test_unknown_and_missing_systems_against_the_campaign(campaign):
    SystemFactory(campaign=campaign, name="S")
    SystemFactory(campaign=campaign, name="T")
    files = WmtFiles(
        source=upload("src.de", "a\nb\n"),
        references=[upload("ref.en", "A\nB\n")],
        systems={"S": upload("S.en", "1\n2\n"), "X": upload("X.en", "1\n2\n")},
    )
    assert problems_of(campaign, files) == [
        f'system "T" of campaign "{campaign.name}" has no output in this import; every new '
        "segment needs one output of every system",
        f'X.en: unknown system "X": campaign "{campaign.name}" has the systems S, T; fix the '
        "name in the file, or, for a new system, add it to the campaign first (the Systems "
        "section of its page) and import its outputs for every segment of the campaign",
    ]


def test_reference_and_system_files_required_outside_translation(campaign):
    files = WmtFiles(source=upload("src.de", "a\n"))
    assert problems_of(campaign, files) == [
        "no reference file; a ranking campaign needs one reference per source line",
        "no system files; a ranking campaign needs the systems' outputs",
    ]


def test_a_post_editing_campaign_is_named_as_the_kind_is_written():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)
    files = WmtFiles(source=upload("src.de", "a\n"))
    assert problems_of(campaign, files)[0] == (
        "no reference file; a post-editing campaign needs one reference per source line"
    )


def test_translation_campaign_imports_sources_only():
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION)
    summary = run_import(campaign, "wmt", WmtFiles(source=upload("src.de", "a\nb\n")))
    assert (summary.segments, summary.systems, summary.outputs) == (2, 0, 0)


def test_second_import_of_the_same_files_is_a_duplicate_output(campaign):
    def files():
        return WmtFiles(
            source=upload("src.de", "a\n"),
            references=[upload("ref.en", "A\n")],
            systems={"S": upload("S.en", "1\n")},
        )

    run_import(campaign, "wmt", files())
    assert problems_of(campaign, files()) == [
        f'S.en line 1: duplicate id: doc src.de seg 1 of campaign "{campaign.name}" has an '
        'output of system "S" already; an import adds outputs, it never changes or repeats '
        "stored ones"
    ]


def test_system_names_drop_the_parts_all_files_share():
    assert system_names(
        ["newstest2019.de-en.UEDIN.6749", "/data/newstest2019.de-en.online-B.0"]
    ) == ["UEDIN.6749", "online-B.0"]
    assert system_names(["wmt.A.en", "wmt.B.en"]) == ["A", "B"]
    assert system_names(["only.one.file"]) == ["only.one.file"]
    # Nothing would be left of a.txt: whole file names.
    assert system_names(["a.txt", "a.b.txt"]) == ["a.txt", "a.b.txt"]


def test_parse_system_args_takes_names_and_bare_paths(tmp_path):
    assert parse_system_args(["X=/tmp/x.txt", "run.A.en", "run.B.en"]) == {
        "X": "/tmp/x.txt",
        "A": "run.A.en",
        "B": "run.B.en",
    }
    odd = tmp_path / "a=b.txt"
    odd.write_text("1\n")
    assert parse_system_args([str(odd)]) == {"a=b.txt": str(odd)}
    with pytest.raises(ValueError, match='system "X" is given twice'):
        parse_system_args(["X=a", "X=b"])
