"""Appraise batch JSON: TGT items become outputs, QC items are counted, JSON paths in problems."""

import io
import json

import pytest

from campaigns.importers import ImportFailed, run_import
from campaigns.models import Document, Output, Segment, System, TaskKind
from tests.factories import CampaignFactory, SystemFactory

pytestmark = pytest.mark.django_db


def item(doc, item_id, item_type, target_id, target_text, source=None, **extra):
    value = {
        "_block": -1,
        "_item": 0,
        "documentID": doc,
        "isCompleteDocument": False,
        "itemID": item_id,
        "itemType": item_type,
        "sourceID": "newstest2019-ende-src.en",
        "sourceText": source if source is not None else f"Source {doc.split('#')[0]} {item_id}",
        "targetID": target_id,
        "targetText": target_text,
    }
    value.update(extra)
    return value


def batch(*tasks) -> str:
    return json.dumps(
        [{"items": list(items), "task": {"batchNo": n + 1}} for n, items in enumerate(tasks)],
        indent=2,
        ensure_ascii=False,
    )


def upload(text: str | bytes, name: str = "batches.json") -> io.BytesIO:
    file = io.BytesIO(text.encode("utf-8") if isinstance(text, str) else text)
    file.name = name
    return file


def counts(campaign):
    return (
        Document.objects.filter(campaign=campaign).count(),
        Segment.objects.filter(campaign=campaign).count(),
        System.objects.filter(campaign=campaign).count(),
        Output.objects.filter(segment__campaign=campaign).count(),
    )


def problems_of(campaign, text) -> list[str]:
    before = counts(campaign)
    with pytest.raises(ImportFailed) as failure:
        run_import(campaign, "appraise", upload(text))
    assert counts(campaign) == before
    return [str(problem) for problem in failure.value.problems]


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the '{' opening the item containing the n-th ``needle``."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, text.rindex("{", 0, at)) + 1


@pytest.fixture
def campaign():
    return CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT)


def good_batch() -> str:
    return batch(
        [
            item("doc1#sysA", 2, "TGT", "sysA", "A2 <b>"),
            item("doc1#sysB", 2, "TGT", "sysB", "B2 & co"),
            item("doc1", 1, "TGT", "sysA+sysB", "same 1 \u2028"),
            item("doc1", 1, "REF", "newstest2019-ende-ref.de", "Ref 1"),
            item("doc1", 2, "REF", "newstest2019-ende-ref.de", "Ref 2 مرحبا"),
            item("doc1", 1, "BAD", "sysA", "same bad 1"),
            item("doc1", 2, "CHK", "sysB", "B2 & co"),
            item("doc1", 2, "TGT", "sysA", "Source doc1 1 Source doc1 2", isCompleteDocument=True),
        ],
        [
            item("doc1#sysA", 2, "TGT", "sysA", "A2 <b>"),
            item("doc2#sysA#bad1", "a", "TGT", "sysA+sysB", "你好"),
            item("doc2", "a", "REF", "newstest2019-ende-ref.de", "Ref a"),
            item("tut", 1, "TGT", "tut", "The dog walked.", mqm={"tutorial": {}, "payload": []}),
        ],
    )


def test_good_batch(campaign):
    summary = run_import(campaign, "appraise", upload(good_batch()))

    assert (summary.documents, summary.segments, summary.systems, summary.outputs) == (2, 3, 2, 6)
    assert summary.ignored == {
        "Appraise BAD items": 1,
        "Appraise CHK items": 1,
        "Appraise REF items": 3,
        "Appraise whole-document items": 1,
        "Appraise tutorial items": 1,
    }
    assert summary.message == (
        "Imported 2 new documents, 3 segments and 6 outputs of 2 systems (2 new) from "
        "batches.json. Ignored 5 Appraise quality-control items (BAD 1, CHK 1, REF 3): evalsite "
        "builds its own; REF items gave the segments' references. Ignored 1 whole-document item "
        "(isCompleteDocument): evalsite shows documents from their segments. Ignored 1 Appraise "
        "tutorial item. Merged 1 repeated item (the same output in several tasks)."
    )
    segments = list(
        Segment.objects.order_by("document__position", "position").values_list(
            "document__external_id", "external_id", "position", "source", "references"
        )
    )
    # doc1: item 2 appears first but the numeric itemIDs decide the order.
    assert segments == [
        ("doc1", "1", 1, "Source doc1 1", ["Ref 1"]),
        ("doc1", "2", 2, "Source doc1 2", ["Ref 2 مرحبا"]),
        ("doc2", "a", 1, "Source doc2 a", ["Ref a"]),
    ]
    outputs = {
        (seg, system): text
        for seg, system, text in Output.objects.values_list(
            "segment__external_id", "system__name", "text"
        )
    }
    assert outputs == {
        ("1", "sysA"): "same 1 \u2028",
        ("1", "sysB"): "same 1 \u2028",
        ("2", "sysA"): "A2 <b>",
        ("2", "sysB"): "B2 & co",
        ("a", "sysA"): "你好",
        ("a", "sysB"): "你好",
    }


def test_sentence_level_batch_without_document_ids_and_reference_system(campaign):
    items = [
        {"itemID": 3, "itemType": "TGT", "sourceID": "src.en", "sourceText": "Three",
         "targetID": "sys", "targetText": "Drei"},
        {"itemID": 3, "itemType": "TGT", "sourceID": "src.en", "sourceText": "Three",
         "targetID": "translator-A", "targetText": "Drei (human)"},
        {"itemID": 1, "itemType": "TGT", "sourceID": "src.en", "sourceText": "One",
         "targetID": "sys+translator-A", "targetText": "Eins"},
    ]  # fmt: skip
    summary = run_import(campaign, "appraise", upload(json.dumps([{"items": items}])))
    assert summary.notes == (
        "imported translator-A as reference systems; their text is also the reference",
    )
    assert list(Document.objects.values_list("external_id", flat=True)) == ["src.en"]
    assert list(Segment.objects.order_by("position").values_list("external_id", "references")) == [
        ("1", ["Eins"]),
        ("3", ["Drei (human)"]),
    ]
    assert dict(System.objects.values_list("name", "is_reference")) == {
        "sys": False,
        "translator-A": True,
    }


def test_json_syntax_error_gives_the_line(campaign):
    text = '[\n  {"items": [\n    {"itemID": 1,,}\n  ]}\n]'
    assert problems_of(campaign, text) == [
        "batches.json line 3: not valid JSON: Expecting property name enclosed in double quotes "
        "at column 18"
    ]


def test_repeated_item_with_different_text_is_an_error(campaign):
    text = batch(
        [item("d", 1, "TGT", "S", "first"), item("d", 1, "REF", "ref", "R")],
        [item("d", 1, "TGT", "S", "second")],
    )
    first, second = line_of(text, '"first"'), line_of(text, '"second"')
    assert problems_of(campaign, text) == [
        f'batches.json line {second}, field "[1].items[0].targetText": doc d item 1 system S '
        f"has a different targetText in [0].items[0] (line {first}); an item repeated across "
        "tasks must have the same text"
    ]


def test_unknown_item_type_and_non_object_item(campaign):
    text = batch(
        [
            item("d", 1, "TGT", "S", "x"),
            item("d", 1, "XYZ", "S", "y"),
            5,
            item("d", 1, "REF", "r", "R"),
        ]
    )
    # A number has no line of its own: problems without a line come first.
    assert problems_of(campaign, text) == [
        'batches.json, field "[0].items[2]": not a JSON object; every item is one {...} object',
        f'batches.json line {line_of(text, "XYZ")}, field "[0].items[1].itemType": unknown '
        'itemType "XYZ"; Appraise items are TGT (a system output) or BAD, CHK, REF (quality '
        "control)",
    ]


def test_batch_without_any_reference_is_one_problem(campaign):
    text = batch([item("d", 1, "TGT", "S", "x"), item("d", 2, "TGT", "S", "y")])
    assert problems_of(campaign, text) == [
        "batches.json: no reference text in this batch (Appraise puts references in REF items, "
        "or in the outputs of a reference system such as translator-A or refA); a direct "
        "assessment campaign needs a reference for every segment"
    ]


def test_segment_without_reference_when_others_have_one(campaign):
    text = batch(
        [
            item("d", 1, "TGT", "S", "x"),
            item("d", 1, "REF", "ref", "R1"),
            item("d", 2, "TGT", "S", "y"),
        ]
    )
    line = line_of(text, '"y"')
    assert problems_of(campaign, text) == [
        f'batches.json line {line}, field "[0].items[2]": no reference for doc d '
        "item 2: no REF item and no reference-system output; a direct assessment campaign "
        "needs a reference for every segment"
    ]


def test_source_disagreement_and_empty_output(campaign):
    text = batch(
        [
            item("d", 1, "TGT", "S", "x", source="Eins"),
            item("d", 1, "REF", "ref", "R", source="Eins!"),
            item("d", 2, "TGT", "S", "  ", source="Zwei"),
            item("d", 2, "REF", "ref", "R2", source="Zwei"),
        ]
    )
    first, differs, empty = line_of(text, '"x"'), line_of(text, "Eins!"), line_of(text, '"  "')
    assert problems_of(campaign, text) == [
        f'batches.json line {differs}, field "[0].items[1].sourceText": doc d item 1 has a '
        f"different sourceText in [0].items[0] (line {first}); every item of one segment must "
        "have the same source",
        f'batches.json line {empty}, field "[0].items[2].targetText": empty segment; every '
        "output needs text",
    ]


def test_unknown_system_and_missing_output(campaign):
    SystemFactory(campaign=campaign, name="S")
    SystemFactory(campaign=campaign, name="T")
    text = batch(
        [
            item("d", 1, "TGT", "S+T", "x"),
            item("d", 1, "REF", "ref", "R"),
            item("d", 2, "TGT", "S+U", "y"),
            item("d", 2, "REF", "ref", "R2"),
        ]
    )
    line = line_of(text, '"y"')
    assert problems_of(campaign, text) == [
        f'batches.json line {line}, field "[0].items[2].targetID": unknown system "U": campaign '
        f'"{campaign.name}" has the systems S, T; fix the name in the file, or, for a new system, '
        "add it to the campaign first (the Systems section of its page) and import its outputs "
        "for every segment of the campaign",
        f'batches.json line {line}, field "[0].items[2]": missing output: system "T" has no '
        "output for doc d seg 2",
    ]


def test_not_a_batch_file(campaign):
    assert problems_of(campaign, '{"items": []}') == [
        "batches.json line 1: not an Appraise batch file: expected a JSON list of tasks, each "
        '{"items": [...], "task": {...}}'
    ]
