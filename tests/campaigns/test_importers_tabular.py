"""Tabular imports (TSV, CSV, JSONL): good files stored exactly, bad files rejected whole."""

import io
import json

import pytest

from campaigns.importers import (
    SHOWN_PROBLEMS,
    ImportFailed,
    ImportProblem,
    check_import,
    run_import,
    write_checked,
)
from campaigns.models import Campaign, Document, Output, Segment, System, TaskKind
from tests.factories import CampaignFactory, OutputFactory, SegmentFactory, SystemFactory

pytestmark = pytest.mark.django_db

HEADER = "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"


def upload(text: str | bytes, name: str = "demo.tsv") -> io.BytesIO:
    file = io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text)
    file.name = name
    return file


def tsv(*rows: str, header: str = HEADER) -> str:
    return header + "".join(row + "\n" for row in rows)


def counts(campaign: Campaign) -> tuple[int, int, int, int]:
    return (
        Document.objects.filter(campaign=campaign).count(),
        Segment.objects.filter(campaign=campaign).count(),
        System.objects.filter(campaign=campaign).count(),
        Output.objects.filter(segment__campaign=campaign).count(),
    )


def problems_of(campaign, fmt, text, name="demo.tsv") -> list[str]:
    before = counts(campaign)
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, fmt, upload(text, name))
    assert counts(campaign) == before, "a failed import must write nothing"
    return [str(problem) for problem in failure.value.problems]


@pytest.fixture
def campaign():
    return CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT)


TRICKY = {
    "html": '<b>Fish & "chips"</b> &amp; <script>alert(1)</script>',
    "arabic": "مرحبا بالعالم، كيف حالك؟",
    "hebrew": "שלום עולם",
    "cjk": "你好，世界。日本語のテキスト",
    "spaces": "  leading and trailing spaces  ",
}


def test_tsv_good_file_stores_exact_texts_positions_and_references(campaign):
    text = tsv(
        f"d1\t1\tQuelle eins\t{TRICKY['html']}\tsysA\t{TRICKY['arabic']}",
        f"d1\t1\tQuelle eins\t{TRICKY['html']}\tsysB\t{TRICKY['cjk']}",
        f"d1\t7\tQuelle 'sieben'\tRef seven\tsysA\t{TRICKY['spaces']}",
        f"d1\t7\tQuelle 'sieben'\tRef seven\tsysB\t{TRICKY['hebrew']}",
        "d0\tx\tAndere\tOther\tsysB\tB other",
        "d0\tx\tAndere\tOther\tsysA\tA other",
    )
    summary = run_import(campaign, "tsv", upload(text))

    assert (summary.documents, summary.segments, summary.systems, summary.outputs) == (2, 3, 2, 6)
    assert summary.files == ("demo.tsv",)
    assert summary.message == (
        "Imported 2 new documents, 3 segments and 6 outputs of 2 systems (2 new) from demo.tsv."
    )
    assert counts(campaign) == (2, 3, 2, 6)
    docs = list(Document.objects.filter(campaign=campaign).values_list("external_id", "position"))
    assert docs == [("d1", 1), ("d0", 2)]
    segments = list(
        Segment.objects.filter(campaign=campaign)
        .order_by("document__position", "position")
        .values_list("document__external_id", "external_id", "position", "source", "references")
    )
    assert segments == [
        ("d1", "1", 1, "Quelle eins", [TRICKY["html"]]),
        ("d1", "7", 2, "Quelle 'sieben'", ["Ref seven"]),
        ("d0", "x", 1, "Andere", ["Other"]),
    ]
    outputs = {
        (seg, system): text
        for seg, system, text in Output.objects.filter(segment__campaign=campaign).values_list(
            "segment__external_id", "system__name", "text"
        )
    }
    assert outputs == {
        ("1", "sysA"): TRICKY["arabic"],
        ("1", "sysB"): TRICKY["cjk"],
        ("7", "sysA"): TRICKY["spaces"],
        ("7", "sysB"): TRICKY["hebrew"],
        ("x", "sysA"): "A other",
        ("x", "sysB"): "B other",
    }
    assert sorted(System.objects.filter(campaign=campaign).values_list("name", flat=True)) == [
        "sysA",
        "sysB",
    ]


def test_tsv_extra_reference_columns_in_column_order_and_empty_ones_skipped(campaign):
    header = "doc_id\tseg_id\tsource\treference\treference_b\treference_2\tsystem\toutput\n"
    text = tsv(
        "d\t1\tQ1\tR1 main\tR1 b\tR1 two\tS\tO1",
        "d\t2\tQ2\tR2 main\t\tR2 two\tS\tO2",
        header=header,
    )
    run_import(campaign, "tsv", upload(text))
    refs = list(Segment.objects.order_by("position").values_list("references", flat=True))
    assert refs == [["R1 main", "R1 b", "R1 two"], ["R2 main", "R2 two"]]


def test_tsv_quoted_fields_crlf_and_bom(campaign):
    text = (
        "\ufeffdoc_id\tseg_id\tsource\treference\tsystem\toutput\r\n"
        'd\t1\t"tab\tinside"\tR\tS\t"say ""hi"""\r\n'
        'd\t2\tQ2\tR2\tS\tquote "inside" is plain text\r\n'
    )
    run_import(campaign, "tsv", upload(text))
    assert list(Segment.objects.order_by("position").values_list("source", flat=True)) == [
        "tab\tinside",
        "Q2",
    ]
    assert list(Output.objects.order_by("segment__position").values_list("text", flat=True)) == [
        'say "hi"',
        'quote "inside" is plain text',
    ]


def test_csv_rfc4180_quoting_with_commas_newlines_and_quotes(campaign):
    text = (
        "doc_id,seg_id,source,reference,system,output\n"
        'd,1,"Hallo, Welt","Hello, ""world""",S,"line one\nline two"\n'
        "d,2,Zwei,Two,S,Two out\n"
    )
    run_import(campaign, "csv", upload(text, "demo.csv"))
    first = Segment.objects.get(external_id="1")
    assert (first.source, first.references) == ("Hallo, Welt", ['Hello, "world"'])
    assert Output.objects.get(segment=first).text == "line one\nline two"
    assert Segment.objects.get(external_id="2").position == 2


def test_csv_separated_by_semicolons_as_excel_saves_it(campaign):
    text = (
        "\ufeffdoc_id;seg_id;source;reference;system;output\r\n"
        'd;1;"Hallo; Welt";Hello, world;S;"say ""hi""; bye"\r\n'
        "d;2;Zwei, drei;Two;S;Two out\r\n"
    )
    summary = run_import(campaign, "csv", upload(text, "excel.csv"))
    assert summary.message == (
        "Imported 1 new document, 2 segments and 2 outputs of 1 system (1 new) from excel.csv."
    )
    assert list(
        Segment.objects.order_by("position").values_list("external_id", "source", "references")
    ) == [("1", "Hallo; Welt", ["Hello, world"]), ("2", "Zwei, drei", ["Two"])]
    assert list(Output.objects.order_by("segment__position").values_list("text", flat=True)) == [
        'say "hi"; bye',
        "Two out",
    ]


def test_a_semicolon_csv_row_with_a_field_too_many_names_semicolons(campaign):
    text = "doc_id;seg_id;source;reference;system;output\nd;1;Q;R;S;O;extra\n"
    assert problems_of(campaign, "csv", text, "excel.csv") == [
        "excel.csv line 2: 7 fields, but the header has 6; check for missing or extra "
        "semicolons (quote a field that contains one)"
    ]


@pytest.mark.parametrize(
    ("fmt", "name", "header", "expected"),
    [
        (
            "tsv",
            "demo.tsv",
            "doc_id,seg_id,source,reference,system,output",
            "the header is not tab-separated but comma-separated (doc_id, seg_id, source, "
            "reference, system, output): this looks like a CSV file; import it as CSV (the "
            "format on the import page, --format csv with manage.py import_segments)",
        ),
        (
            "tsv",
            "demo.tsv",
            "doc_id;seg_id;source;reference;system;output",
            "the header is not tab-separated but semicolon-separated (doc_id, seg_id, source, "
            "reference, system, output): this looks like a CSV file as Excel saves it in many "
            "languages; import it as CSV, which accepts semicolons (the format on the import "
            "page, --format csv with manage.py import_segments)",
        ),
        (
            "csv",
            "demo.csv",
            "doc_id\tseg_id\tsource\treference\tsystem\toutput",
            "the header is not comma-separated but tab-separated (doc_id, seg_id, source, "
            "reference, system, output): this looks like a TSV file; import it as TSV (the "
            "format on the import page, --format tsv with manage.py import_segments)",
        ),
    ],
)
def test_a_header_with_another_separator_says_which_format_to_choose(
    campaign, fmt, name, header, expected
):
    separator = header[6]
    row = separator.join(["d", "1", "Q", "R", "S", "O"])
    assert problems_of(campaign, fmt, f"{header}\n{row}\n", name) == [f"{name} line 1: {expected}"]


def test_a_header_that_splits_nowhere_into_columns_gets_the_column_problems(campaign):
    # No separator gives known names: the ordinary problems, which name the columns.
    assert problems_of(campaign, "tsv", "doc seg source\nd 1 Q\n") == [
        'demo.tsv line 1, field "doc seg source": unknown column "doc seg source"; the allowed '
        "columns are doc_id, seg_id, source, reference, system, output, and reference_<name> "
        "(e.g. reference_2) for each further reference",
        'demo.tsv line 1: missing columns "doc_id", "seg_id", "source", "reference", "system", '
        '"output"; every row needs doc_id, seg_id, source, reference, system and output '
        "(system and output may be empty only in translation campaigns)",
    ]


def test_jsonl_with_number_ids_and_extra_reference_keys(campaign):
    rows = [
        {"doc_id": "d", "seg_id": 3, "source": "Q3", "reference": "R3", "reference_b": "R3b",
         "system": "S", "output": "O3 \u2028 sep"},
        {"doc_id": "d", "seg_id": 1, "source": "Q1", "reference": "R1", "system": "S",
         "output": "O1 <i>"},
    ]  # fmt: skip
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    summary = run_import(campaign, "jsonl", upload(text, "demo.jsonl"))
    assert (summary.segments, summary.outputs) == (2, 2)
    segs = list(
        Segment.objects.order_by("position").values_list("external_id", "position", "references")
    )
    assert segs == [("3", 1, ["R3", "R3b"]), ("1", 2, ["R1"])]
    assert Output.objects.get(segment__external_id="3").text == "O3 \u2028 sep"


def test_translation_campaign_takes_segments_without_references_or_outputs():
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION)
    text = tsv("d\t1\tÜbersetze mich\t\t\t", "d\t2\tUnd mich\t\t\t")
    summary = run_import(campaign, "tsv", upload(text))
    assert (summary.segments, summary.systems, summary.outputs) == (2, 0, 0)
    assert list(Segment.objects.values_list("references", flat=True)) == [[], []]


def test_import_into_campaign_with_systems_and_documents_continues_positions(campaign):
    SystemFactory(campaign=campaign, name="S")
    old = SegmentFactory(
        document__campaign=campaign, document__external_id="d", document__position=1,
        external_id="1", position=1,
    )  # fmt: skip
    OutputFactory(segment=old, system=System.objects.get(name="S"))
    text = tsv("d\t2\tQ2\tR2\tS\tO2", "e\t1\tQe\tRe\tS\tOe")
    summary = run_import(campaign, "tsv", upload(text))
    assert (summary.documents, summary.segments, summary.systems, summary.outputs) == (1, 2, 0, 2)
    assert Segment.objects.get(document__external_id="d", external_id="2").position == 2
    assert Document.objects.get(external_id="e").position == 2


# --- bad files ----------------------------------------------------------------------------


def test_unknown_column_is_named_with_the_allowed_ones(campaign):
    header = "doc_id\tseg_id\tsource\treference\tsystem\toutput\tscore\n"
    assert problems_of(campaign, "tsv", tsv("d\t1\tQ\tR\tS\tO\t5", header=header)) == [
        'demo.tsv line 1, field "score": unknown column "score"; the allowed columns are '
        "doc_id, seg_id, source, reference, system, output, and reference_<name> "
        "(e.g. reference_2) for each further reference"
    ]


def test_missing_columns(campaign):
    header = "doc_id\tseg_id\tsource\treference\n"
    assert problems_of(campaign, "tsv", tsv("d\t1\tQ\tR", header=header)) == [
        'demo.tsv line 1: missing columns "system", "output"; every row needs doc_id, seg_id, '
        "source, reference, system and output (system and output may be empty only in "
        "translation campaigns)"
    ]


def test_empty_and_whitespace_segments_are_each_reported(campaign):
    text = tsv("d\t1\tQ\tR\tS\t", "d\t2\t  \tR\tS\tO", "d\t3\tQ\t \tS\tO")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 2, field "output": empty segment; every output needs text',
        'demo.tsv line 3, field "source": empty segment; every source needs text',
        'demo.tsv line 4, field "reference": empty reference; a direct assessment campaign '
        "needs a reference for every segment",
    ]


def test_source_disagreement_names_both_lines(campaign):
    text = tsv("d\t1\tQ\tR\tA\tO", "d\t1\tQ\tR\tB\tO", "d\t1\tQ!\tR\tC\tO")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 4, field "source": doc d seg 1 has a different source on line 2; every '
        "row of one segment must have the same source and references"
    ]


def test_reference_disagreement_is_reported(campaign):
    text = tsv("d\t1\tQ\tR\tA\tO", "d\t1\tQ\tR2\tB\tO")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 3, field "reference": doc d seg 1 has a different reference on line 2; '
        "every row of one segment must have the same source and references"
    ]


def test_duplicate_output_id_names_both_lines(campaign):
    text = tsv("d\t1\tQ\tR\tA\tO", "d\t1\tQ\tR\tA\tO again")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 3, field "system": duplicate id: doc d seg 1 system A is also on line 2; '
        "a system has one output per segment"
    ]


def test_a_row_for_a_stored_segment_with_another_source_is_refused(campaign):
    SegmentFactory(
        document__campaign=campaign,
        document__external_id="d",
        external_id="1",
        source="Stored source",
    )
    text = tsv("d\t1\tQ\tR\tA\tO", "d\t2\tQ\tR\tA\tO")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 2, field "source": doc d seg 1 is already in campaign '
        f'"{campaign.name}" with another source, "Stored source"; a row for a stored segment '
        "adds an output to it and must repeat its source and references exactly"
    ]


def test_unknown_system_names_the_known_ones(campaign):
    SystemFactory(campaign=campaign, name="alpha")
    SystemFactory(campaign=campaign, name="beta")
    text = tsv("d\t1\tQ\tR\talpha\tO", "d\t1\tQ\tR\tbeta\tO", "d\t1\tQ\tR\tgamma\tO")
    assert problems_of(campaign, "tsv", text) == [
        f'demo.tsv line 4, field "system": unknown system "gamma": campaign "{campaign.name}" '
        "has the systems alpha, beta; fix the name in the file, or, for a new system, add it "
        "to the campaign first (the Systems section of its page) and import its outputs for "
        "every segment of the campaign"
    ]


def test_missing_output_of_a_system(campaign):
    text = tsv("d\t1\tQ\tR\tA\tO", "d\t1\tQ\tR\tB\tO", "d\t2\tQ2\tR2\tA\tO")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 4, field "system": missing output: system "B" has no output for doc d seg 2'
    ]


def test_bad_encoding_reports_line_of_first_bad_byte(campaign):
    data = tsv("d\t1\tQ\tR\tA\tO").encode() + b"d\t2\tQ\tR\tA\tbroken \xff\xfe bytes\n"
    assert problems_of(campaign, "tsv", data) == [
        "demo.tsv line 3: not UTF-8 text: byte 0xFF at byte 18 of the line cannot be decoded; "
        "save the file as UTF-8 and import it again"
    ]


def test_too_long_segment(campaign):
    text = tsv(f"d\t1\tQ\tR\tA\t{'x' * 10_001}")
    assert problems_of(campaign, "tsv", text) == [
        'demo.tsv line 2, field "output": segment of 10,001 characters; the limit is 10,000 (a '
        "segment this long is almost always a broken file: a lost line break or an unclosed "
        "quote)"
    ]


def test_wrong_field_count_and_blank_line_in_the_middle(campaign):
    text = tsv("d\t1\tQ\tR\tA", "", "d\t2\tQ\tR\tA\tO", "")
    assert problems_of(campaign, "tsv", text) == [
        "demo.tsv line 2: 5 fields, but the header has 6; check for missing or extra tabs "
        "(quote a field that contains one)",
        "demo.tsv line 3: empty line; every line after the header is one row",
    ]


def test_field_starting_with_a_quote_must_be_properly_quoted(campaign):
    text = tsv('d\t1\t"Ja," sagte sie.\tR\tA\tO')
    assert problems_of(campaign, "tsv", text) == [
        "demo.tsv line 2: cannot read the row: a field starts with a double quote but has more "
        "text after its closing quote; quote the whole field and double every quote inside it "
        '(""); the rest of the file was not read'
    ]


def test_unclosed_quote_is_reported_at_the_row_where_it_starts(campaign):
    text = tsv("d\t1\tQ\tR\tA\tO", 'd\t2\t"Q\tR\tA\tO', "d\t3\tQ\tR\tA\tO")
    assert problems_of(campaign, "tsv", text) == [
        "demo.tsv line 3: cannot read the row: a quoted field is never closed (a double quote "
        "is missing); the rest of the file was not read"
    ]


def test_system_rows_required_outside_translation(campaign):
    assert problems_of(campaign, "tsv", tsv("d\t1\tQ\tR\t\t")) == [
        'demo.tsv line 2, field "system": empty system name; every row is one system\'s output '
        "(only translation campaigns may import segments without outputs)"
    ]


def test_jsonl_errors(campaign):
    text = (
        '{"doc_id": "d", "seg_id": 1, "source": "Q", "reference": "R", "system": "A", '
        '"output": "O", "extra": 1}\n'
        "{not json}\n"
        "[1, 2]\n"
    )
    assert problems_of(campaign, "jsonl", text, "demo.jsonl") == [
        'demo.jsonl line 1, field "extra": unknown key "extra"; the allowed columns are doc_id, '
        "seg_id, source, reference, system, output, and reference_<name> (e.g. reference_2) for "
        "each further reference",
        "demo.jsonl line 2: not valid JSON: Expecting property name enclosed in double quotes "
        "at column 2",
        "demo.jsonl line 3: not a JSON object; every line is one {...} object",
    ]


def test_all_problems_are_collected_and_capped(campaign):
    rows = [f"d\t{n}\tQ\tR\tA\t" for n in range(1, 251)]
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "tsv", upload(tsv(*rows)))
    error = failure.value
    assert error.total == 250
    assert len(error.problems) == SHOWN_PROBLEMS == 200
    assert error.omitted == 50
    assert error.lines()[-1] == "... and 50 more (only the first 200 are listed)"
    assert str(error.problems[0]).startswith('demo.tsv line 2, field "output"')
    assert counts(campaign) == (0, 0, 0, 0)


def test_path_input_and_empty_file(campaign, tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_bytes(b"")
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "tsv", str(path))
    assert [str(p) for p in failure.value.problems] == [
        "empty.tsv: empty file: the header row is missing"
    ]
    path.write_text(HEADER)
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "tsv", path)
    assert [str(p) for p in failure.value.problems] == [
        "empty.tsv: nothing to import: no segments found in empty.tsv"
    ]


def test_dry_run_writes_nothing_and_says_what_it_would_do(campaign):
    summary = run_import(campaign, "tsv", upload(tsv("d\t1\tQ\tR\tA\tO")), dry_run=True)
    assert summary.message == (
        "Checked demo.tsv: no problems. Importing would add 1 new document, 1 segment and "
        "1 output of 1 system (1 new); nothing was written."
    )
    assert counts(campaign) == (0, 0, 0, 0)


def test_progress_is_reported_while_writing(campaign):
    calls = []
    run_import(
        campaign,
        "tsv",
        upload(tsv("d\t1\tQ\tR\tA\tO", "d\t2\tQ\tR\tA\tO")),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[0] == (0, 4)
    assert calls[-1] == (4, 4)


def test_utf16_file_is_named_as_such(campaign):
    data = tsv("d\t1\tQ\tR\tA\tO").encode("utf-16")
    assert problems_of(campaign, "tsv", data) == [
        "demo.tsv line 1: not UTF-8 text: the file starts with a UTF-16 byte-order mark; save it "
        "as UTF-8 and import it again"
    ]


def test_segment_added_between_check_and_write_is_caught_in_the_transaction(campaign):
    checked = check_import(campaign, "tsv", upload(tsv("d\t1\tQ\tR\tA\tO")))
    SegmentFactory(
        document__campaign=campaign, document__external_id="d", external_id="1", source="Other"
    )
    before = counts(campaign)
    with pytest.raises(ImportFailed) as failure:
        write_checked(checked)
    assert [str(p) for p in failure.value.problems] == [
        f'demo.tsv line 2, field "source": doc d seg 1 is already in campaign "{campaign.name}" '
        'with another source, "Other"; a row for a stored segment adds an output to it and '
        "must repeat its source and references exactly"
    ]
    assert counts(campaign) == before


def test_new_campaign_is_saved_with_the_import_and_unsaved_again_on_failure():
    campaign = Campaign(
        name="new", kind=TaskKind.RANKING, source_language="de", target_language="en"
    )
    checked = check_import(campaign, "tsv", upload(tsv("d\t1\tQ\tR\tA\tO")))
    other = Campaign(
        name="other", kind=TaskKind.RANKING, source_language="de", target_language="en"
    )
    write_checked(check_import(other, "tsv", upload(tsv("d\t1\tQ\tR\tA\tO"))))
    assert other.pk is not None and counts(other) == (1, 1, 1, 1)

    Campaign.objects.create(name="new", kind=TaskKind.RANKING, source_language="de",
                            target_language="en")  # fmt: skip
    with pytest.raises(Exception, match="UNIQUE|unique|duplicate"):
        write_checked(checked)
    assert campaign.pk is None
    assert Campaign.objects.filter(name="new").count() == 1


def test_problem_text_without_line_or_file():
    assert str(ImportProblem("a.tsv", None, None, "empty file")) == "a.tsv: empty file"
    assert str(ImportProblem(None, None, None, "no reference file")) == "no reference file"
    assert str(ImportProblem("b.json", 3, "[0].items[1].itemID", "x")) == (
        'b.json line 3, field "[0].items[1].itemID": x'
    )


def test_jsonl_values_must_be_strings_and_keys_present(campaign):
    text = (
        '{"doc_id": "d", "seg_id": 1.5, "source": "Q", "reference": "R", "system": "A", '
        '"output": ["O"]}\n'
        '{"doc_id": "d", "seg_id": 2, "source": "Q"}\n'
    )
    assert problems_of(campaign, "jsonl", text, "demo.jsonl") == [
        'demo.jsonl line 1, field "seg_id": 1.5 is not a string or a whole number',
        'demo.jsonl line 1, field "output": ["O"] is not a string',
        'demo.jsonl line 2: missing keys "reference", "system", "output"; every line needs '
        'doc_id, seg_id, source, reference, system and output (use "" for an empty one)',
    ]


def test_a_nul_byte_in_a_semicolon_csv_names_its_column(campaign):
    text = "doc_id;seg_id;source;reference;system;output\nd;1;Q;R;S;O\x00\n"
    assert problems_of(campaign, "csv", text, "excel.csv") == [
        'excel.csv line 2, field "output": the file contains a NUL byte (0x00) on line 2; save '
        "it as plain text (UTF-8, no NUL bytes) and import it again"
    ]
