"""Import of published post-edits (issue 13 item 7): the format post-edits, read from TSV, CSV
and JSONL under the names post-editing corpora use, stored as a collected post-editing
campaign stores its edits; every problem with its file, line and column, nothing written.

The statistics the import hands the campaign to are the recompute's
(test_import_post_edits_hter.py runs them); here they are left out, so that these tests say
what the import itself writes."""

from pathlib import Path

import pytest

import campaigns.importers.judgments as judgment_importers
from analytics.stats.post_editing import edit_stats
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.importers.judgments.post_edits import FIELDS, normalise
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Document,
    HitSlot,
    HitTask,
    Output,
    Segment,
    SlotRole,
    System,
    TaskKind,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment, Platform

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "post_edits"


@pytest.fixture(autouse=True)
def no_statistics(monkeypatch):
    monkeypatch.setattr(judgment_importers, "recompute_campaign", lambda campaign: None)


def fixture(name: str) -> str:
    return str(FIXTURES / name)


def run(*names: str, **options) -> judgment_importers.JudgmentImportSummary:
    options.setdefault("name", "PE")
    if "campaign" not in options:
        options.setdefault("source_language", "de")
        options.setdefault("target_language", "en")
    return import_judgments(
        [fixture(name) for name in names], ImportOptions("post-edits", **options)
    )


def refused(*names: str, **options) -> list[str]:
    with pytest.raises(ImportFailed) as failure:
        run(*names, **options)
    return [str(problem) for problem in failure.value.problems]


def edits() -> list[tuple]:
    """(editor, system, segment, MT output shown, edit, details) in the import's order."""
    return list(
        Judgment.objects.order_by("pk").values_list(
            "worker__external_id",
            "slot__output__system__name",
            "slot__segment__external_id",
            "slot__shown_text",
            "text",
            "details",
        )
    )


def nothing_written() -> bool:
    return not (Campaign.objects.exists() or Judgment.objects.exists() or Segment.objects.exists())


# --- A hand-checked file -----------------------------------------------------------------------


def test_the_hand_checked_file_becomes_a_post_editing_campaign():
    summary = run("hand.tsv")
    campaign = Campaign.objects.get()
    assert summary.message == (
        "Imported 6 judgments (2 workers, 4 assignments, 2 HITs, 2 systems, 2 segments) from "
        'hand.tsv into new campaign "PE" (post-editing, HTER with tercom\'s defaults).'
    )
    assert (campaign.kind, campaign.status, campaign.imported_from) == (
        TaskKind.POST_EDITING,
        CampaignStatus.FINISHED,
        "post-edits",
    )
    assert (campaign.source_language, campaign.target_language) == ("de", "en")
    # Two editors on each HIT: the redundancy the file shows.
    assert campaign.redundancy == 2
    settings = campaign.post_editing_settings
    assert (settings.mode, settings.ter_case_sensitive, settings.ter_normalized) == (
        "monolingual",
        False,
        False,
    )
    assert list(
        Segment.objects.order_by("position").values_list(
            "document__external_id", "external_id", "position", "source", "references"
        )
    ) == [
        ("d1", "1", 1, "Die Katze saß auf der Matte.", ["the cat sat on the mat"]),
        ("d1", "2", 2, "Er ging nach Hause.", ["He went home."]),
    ]
    assert sorted(Output.objects.values_list("system__name", "segment__external_id", "text")) == [
        ("A", "1", "the cat sat on mat"),
        ("A", "2", "he go home"),
        ("B", "1", "a cat sat on the mat"),
        ("B", "2", "He went home."),
    ]
    # One edit HIT per system of the run (document d1, segments 1 and 2), slots in document
    # order, each showing its MT output; the run is the slots' group.
    assert list(
        HitSlot.objects.order_by("hit__number", "position").values_list(
            "hit__number",
            "hit__task",
            "position",
            "group",
            "role",
            "output__system__name",
            "segment__external_id",
            "shown_text",
        )
    ) == [
        (1, HitTask.POST_EDIT, 1, 1, SlotRole.SYSTEM, "A", "1", "the cat sat on mat"),
        (1, HitTask.POST_EDIT, 2, 1, SlotRole.SYSTEM, "A", "2", "he go home"),
        (2, HitTask.POST_EDIT, 1, 1, SlotRole.SYSTEM, "B", "1", "a cat sat on the mat"),
        (2, HitTask.POST_EDIT, 2, 1, SlotRole.SYSTEM, "B", "2", "He went home."),
    ]
    assert sorted(
        Assignment.objects.values_list("worker__external_id", "hit__number", "status")
    ) == [
        ("ann1", 1, AssignmentStatus.SUBMITTED),
        ("ann1", 2, AssignmentStatus.SUBMITTED),
        ("ann2", 1, AssignmentStatus.SUBMITTED),
        ("ann2", 2, AssignmentStatus.SUBMITTED),
    ]
    assert sorted(
        CampaignWorker.objects.values_list("worker__external_id", "worker__platform")
    ) == [("ann1", Platform.IMPORTED), ("ann2", Platform.IMPORTED)]
    # The edits, with what the edit page's server would say of them.
    assert edits() == [
        ("ann1", "A", "1", "the cat sat on mat", "the cat sat on the mat",
         {"unchanged": False, "copied_reference": True}),
        ("ann2", "A", "1", "the cat sat on mat", "the cat sat on mat",
         {"unchanged": True, "copied_reference": False}),
        ("ann1", "B", "1", "a cat sat on the mat", "the cat sat on the mat",
         {"unchanged": False, "copied_reference": True}),
        ("ann1", "A", "2", "he go home", "he went home",
         {"unchanged": False, "copied_reference": False}),
        ("ann2", "A", "2", "he go home", "home he went",
         {"unchanged": False, "copied_reference": False}),
        ("ann2", "B", "2", "He went home.", "he went home.",
         {"unchanged": False, "copied_reference": False}),
    ]  # fmt: skip
    # Scores, ranks and times are for the other kinds: an edit is its text.
    assert not Judgment.objects.filter(score__isnull=False).exists()
    assert not Judgment.objects.filter(rank__isnull=False).exists()


def test_the_stored_pairs_give_the_hand_worked_ter():
    """TER with hypothesis = the MT output and reference = the edit, as the recompute scores
    the stored pairs (tercom's defaults: case-insensitive): "the cat sat on mat" -> "the cat
    sat on the mat" is one insertion in 6 words; "a" -> "the" one substitution in 6; "go" ->
    "went" one in 3; "he go home" -> "home he went" a shift of "home" and a substitution, 2 in
    3; "He went home." -> "he went home." nothing, case aside."""
    run("hand.tsv")
    pairs = Judgment.objects.order_by("pk").values_list("slot__output__text", "text")
    assert [(s.edits, s.ref_length) for s in (edit_stats(mt, pe) for mt, pe in pairs)] == [
        (1, 6.0),
        (0, 5.0),
        (1, 6.0),
        (1, 3.0),
        (2, 3.0),
        (0, 3.0),
    ]


# --- Names, quoting, JSONL, defaults -------------------------------------------------------------


def test_csv_with_other_names_and_quoting():
    """Source / MT_Output / Post-Edit / Reference / sys / document / segment_id / Annotator:
    names matched without case and punctuation; RFC 4180 quoting (commas, doubled quotes, a
    line break); a corpus's own HTER column is named as not read."""
    summary = run("aliases.csv")
    assert summary.notes == ("aliases.csv: column not read: hter",)
    assert list(
        Segment.objects.order_by("position").values_list(
            "document__external_id", "external_id", "source", "references"
        )
    ) == [
        ("news 1", "1", "Hallo, Welt", ["Hello, world!"]),
        ("news 1", "2", 'Er sagte: "Ja".', []),
        ("news 1", "3", "Zwei\nZeilen", []),
    ]
    assert edits() == [
        ("t1", "online-A", "1", "hello world", "Hello, world!",
         {"unchanged": False, "copied_reference": True}),
        ("t1", "online-A", "2", "he said yes", 'He said: "Yes."',
         {"unchanged": False, "copied_reference": False}),
        ("t1", "online-A", "3", "two line", "two\nlines",
         {"unchanged": False, "copied_reference": False}),
    ]  # fmt: skip


def test_jsonl_with_numbers_null_and_other_keys():
    summary = run("edits.jsonl")
    assert summary.counts["judgments"] == 3
    assert summary.notes == (
        "edits.jsonl: column not read: time",
        'edits.jsonl: no system column, so every MT output is system "mt"',
        "the files hold no reference, so the new campaign is bilingual (editors shown the source)",
    )
    assert list(
        Segment.objects.order_by("position").values_list("external_id", "source", "references")
    ) == [("1", "Guten Morgen.", []), ("2", "Danke.", [])]
    assert edits() == [
        ("e1", "mt", "1", "good morning", "Good morning.",
         {"unchanged": False, "copied_reference": False}),
        # Whitespace normalisation only: case and punctuation count as changes.
        ("e2", "mt", "1", "good morning", "good morning",
         {"unchanged": True, "copied_reference": False}),
        ("e1", "mt", "2", "thanks", "Thank you.",
         {"unchanged": False, "copied_reference": False}),
    ]  # fmt: skip


def test_a_file_of_src_mt_pe_only_takes_the_defaults_and_keeps_quotes_as_text():
    """No system, document, segment or editor column: system "mt", document "testset",
    segments numbered by row, one editor "editor-1". A TSV's quotes are text (they are words
    to TER), except fields quoted as pandas writes them: wrapped, inner quotes doubled."""
    summary = run("plain.tsv")
    assert summary.notes == (
        'plain.tsv: no system column, so every MT output is system "mt"',
        'plain.tsv: no doc_id column, so the segments are one document, "testset"',
        "plain.tsv: no seg_id column, so each row is a segment numbered by its place in the "
        "file (1, 2, ...)",
        'plain.tsv: no editor column, so the first post-edit of each output is by "editor-1", '
        'a second one by "editor-2", and so on',
        "the files hold no reference, so the new campaign is bilingual (editors shown the source)",
    )
    assert Campaign.objects.get().post_editing_settings.mode == "bilingual"
    assert list(Document.objects.values_list("external_id", flat=True)) == ["testset"]
    assert edits() == [
        ("editor-1", "mt", "1", '"Good" day', '"Good day."',
         {"unchanged": False, "copied_reference": False}),
        ("editor-1", "mt", "2", "until tomorrow", "see you tomorrow",
         {"unchanged": False, "copied_reference": False}),
        ("editor-1", "mt", "3", 'He said "yes" twice', 'He said "yes".',
         {"unchanged": False, "copied_reference": False}),
    ]  # fmt: skip


def test_repeated_outputs_without_editors_are_several_editors(tmp_path):
    path = tmp_path / "five.tsv"
    path.write_text(
        "seg_id\tsrc\tmt\tpe\n"
        + "".join(f"1\tHallo.\thello\tHello{'!' * n}\n" for n in range(3))
        + "2\tJa.\tyes\tYes.\n",
        encoding="utf-8",
    )
    import_judgments([str(path)], ImportOptions("post-edits", name="PE", language_pair="de-en"))
    assert [(e[0], e[2], e[4]) for e in edits()] == [
        ("editor-1", "1", "Hello"),
        ("editor-2", "1", "Hello!"),
        ("editor-3", "1", "Hello!!"),
        ("editor-1", "2", "Yes."),
    ]
    assert Campaign.objects.get().redundancy == 3


def test_a_language_pair_column_names_the_new_campaigns_languages(tmp_path):
    path = tmp_path / "lp.csv"
    path.write_text("lp,src,mt,pe\nde-en,Hallo.,hello,Hello.\n", encoding="utf-8")
    import_judgments([str(path)], ImportOptions("post-edits", name="PE"))
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.target_language) == ("de", "en")


def test_every_name_read_is_distinct():
    names = [normalise(name) for field in FIELDS for name in field.names]
    assert len(names) == len(set(names))


def test_runs_of_a_long_document_are_cut_like_the_hit_builders(tmp_path):
    """12 segments of one document: runs of 6 + 6 (campaigns.builders.post_editing), so two
    HITs per system, groups 1 and 2, positions in document order whatever the file's order."""
    path = tmp_path / "long.tsv"
    order = [12, 3, 1, 2, 11, 10, 4, 5, 6, 7, 8, 9]
    path.write_text(
        "doc_id\tseg_id\tsrc\tmt\tpe\teditor\n"
        + "".join(f"d\t{n}\tS{n}\tm{n}\tp{n}\tann\n" for n in order),
        encoding="utf-8",
    )
    import_judgments([str(path)], ImportOptions("post-edits", name="PE", language_pair="de-en"))
    assert list(
        HitSlot.objects.order_by("hit__number", "position").values_list(
            "hit__number", "position", "group", "segment__external_id", "segment__position"
        )
    ) == [(1, p, 1, str(p), p) for p in range(1, 7)] + [
        (2, p - 6, 2, str(p), p) for p in range(7, 13)
    ]


# --- Problems: file, line and column; nothing written -------------------------------------------


def test_a_missing_pe_column():
    assert refused("missing_pe.tsv") == [
        'missing_pe.tsv line 1: missing column "pe" (the post-edit; also read as post_edit, '
        "post_edited, post_edition, pe_text, post_edited_text, edited, edit); "
        '"target" is not read, since corpora use such names for the MT output and for the '
        "post-edit alike: rename it mt or pe; the header has: src, mt, post, target"
    ]
    assert nothing_written()


def test_an_empty_mt_output_on_line_3():
    assert refused("empty_mt.tsv") == [
        'empty_mt.tsv line 3, field "mt": empty segment; every MT output needs text'
    ]
    assert nothing_written()


def test_the_same_editor_twice_on_one_output():
    assert refused("twice.tsv") == [
        'twice.tsv line 4, field "editor": editor ann1 already post-edited the output of '
        "system A on document d1, segment 1 on line 2; an editor edits each output once"
    ]
    assert nothing_written()


def test_a_line_that_is_not_json():
    assert refused("bad.jsonl") == [
        "bad.jsonl line 2: not valid JSON: Expecting ',' delimiter at column 33"
    ]
    assert nothing_written()


def test_problems_name_the_files_own_column_names(tmp_path):
    path = tmp_path / "named.csv"
    path.write_text(
        "Source,MT Output,Post-Edit,Annotator,segment_id\n"
        "Hallo.,hello,Hello.,ann1,1\n"
        "Hallo.,hallo,Hello!,ann2,1\n"
        "Ja.,yes,,,2\n",
        encoding="utf-8",
    )
    assert refused(str(path)) == [
        'named.csv line 3, field "MT Output": the MT output differs from the one on line 2 for '
        "system mt, document testset, segment 1; the rows of one output (its post-edits by "
        "several editors) carry the same MT output",
        'named.csv line 4, field "Post-Edit": empty segment; every post-edit needs text',
        'named.csv line 4, field "Annotator": empty editor id',
    ]
    assert nothing_written()


def test_rows_of_one_segment_carry_one_source_and_two_files_without_ids_clash(tmp_path):
    first, second = tmp_path / "train.tsv", tmp_path / "dev.tsv"
    first.write_text("src\tmt\tpe\nHallo.\thello\tHello.\n", encoding="utf-8")
    second.write_text("src\tmt\tpe\nJa.\tyes\tYes.\n", encoding="utf-8")
    assert refused(str(first), str(second)) == [
        'dev.tsv line 2, field "src": the source differs from the one on train.tsv line 2 for '
        "document testset, segment 1; the rows of one segment carry the same source (without "
        "a seg_id column a row's segment is its place in the file, 1, 2, ...: give the files "
        "doc_id and seg_id columns, or import them into separate campaigns)"
    ]
    assert nothing_written()


def test_lines_are_counted_in_the_file_past_quoted_line_breaks(tmp_path):
    """A CSV row is reported on the line where it starts, counting the line breaks inside
    quoted fields before it: the first row spans lines 2 to 4 (two quoted line breaks)."""
    path = tmp_path / "broken.csv"
    path.write_text(
        'src,mt,pe\n"Zwei\nZeilen",two line,"two\nlines"\nJa.,yes,\n"Offen,yes,Yes\n',
        encoding="utf-8",
    )
    assert refused(str(path)) == [
        'broken.csv line 5, field "pe": empty segment; every post-edit needs text',
        "broken.csv line 6: cannot read the row: a quoted field is never closed (a double "
        "quote is missing); the rest of the file was not read",
    ]


def test_json_values_must_be_texts(tmp_path):
    path = tmp_path / "typed.jsonl"
    path.write_text(
        '{"src": "Hallo.", "mt": ["hello"], "pe": "Hello.", "seg_id": 1.5}\n'
        "[1, 2]\n"
        '{"src": "Ja.", "mt": "yes"}\n',
        encoding="utf-8",
    )
    assert refused(str(path)) == [
        'typed.jsonl line 1, field "mt": ["hello"] is not a string',
        'typed.jsonl line 1, field "seg_id": 1.5 is not a string or a whole number',
        "typed.jsonl line 2: not a JSON object; every line is one {...} object",
        'typed.jsonl line 3: missing key "pe" (the post-edit; also read as post_edit, '
        "post_edited, post_edition, pe_text, post_edited_text, edited, edit)",
    ]


def test_a_row_of_the_wrong_width_and_a_column_given_twice(tmp_path):
    wide = tmp_path / "wide.tsv"
    wide.write_text("src\tmt\tpe\nHallo.\thello\tHello.\textra\n", encoding="utf-8")
    twice = tmp_path / "twice.csv"
    twice.write_text("src,mt,pe,PE\nHallo.,hello,Hello.,Hello!\n", encoding="utf-8")
    assert refused(str(wide), str(twice)) == [
        "wide.tsv line 2: 4 fields, but the header has 3; check for missing or extra tabs",
        'twice.csv line 1, field "PE": columns "pe" and "PE" are the same column; keep one',
    ]


# --- Adding to an imported campaign ---------------------------------------------------------------


def test_other_editors_add_to_the_campaign_and_the_same_file_again_is_refused(tmp_path):
    run("hand.tsv")
    campaign = Campaign.objects.get()
    more = tmp_path / "more.tsv"
    more.write_text(
        "src\tmt\tpe\tref\tsystem\tdoc_id\tseg_id\teditor\n"
        "Die Katze saß auf der Matte.\tthe cat sat on mat\tthe cat sat on a mat\t"
        "the cat sat on the mat\tA\td1\t1\tann3\n",
        encoding="utf-8",
    )
    summary = import_judgments([str(more)], ImportOptions("post-edits", campaign=campaign))
    assert summary.counts["new_segments"] == 0
    assert (Judgment.objects.count(), Output.objects.count(), System.objects.count()) == (7, 4, 2)
    # The new HIT's run is numbered after the campaign's.
    assert list(
        HitSlot.objects.filter(hit__number=3).values_list("group", "output__text", "shown_text")
    ) == [(2, "the cat sat on mat", "the cat sat on mat")]
    assert refused("hand.tsv", campaign=campaign)[:2] == [
        "hand.tsv line 2, field \"editor\": editor ann1's post-edit of system A's output on "
        'document d1, segment 1 is already in campaign "PE" (imported before); importing it '
        "again would count it twice",
        "hand.tsv line 3, field \"editor\": editor ann2's post-edit of system A's output on "
        'document d1, segment 1 is already in campaign "PE" (imported before); importing it '
        "again would count it twice",
    ]
    assert Judgment.objects.count() == 7


def test_a_file_without_editors_imported_again_is_refused_with_a_hint():
    run("plain.tsv")
    campaign = Campaign.objects.get()
    assert refused("plain.tsv", campaign=campaign)[0] == (
        "plain.tsv line 2, field \"editor\": editor editor-1's post-edit of system mt's output "
        'on document testset, segment 1 is already in campaign "PE" (imported before); '
        "importing it again would count it twice (the file names no editors, so its edits of "
        "an output are by editor-1, editor-2, ...: if these are other editors' edits, give "
        "the file an editor column)"
    )
    assert Judgment.objects.count() == 3


def test_stored_texts_are_never_changed(tmp_path):
    run("hand.tsv")
    campaign = Campaign.objects.get()
    other = tmp_path / "other.tsv"
    other.write_text(
        "src\tmt\tpe\tref\tsystem\tdoc_id\tseg_id\teditor\n"
        "Die Katze saß auf der Matte!\tthe cat sat on mat\tx\tthe cat sat on the mat\tA\td1\t1\tz\n"
        "Er ging nach Hause.\the goes home\ty\tHe went home.\tA\td1\t2\tz\n",
        encoding="utf-8",
    )
    with pytest.raises(ImportFailed) as failure:
        import_judgments([str(other)], ImportOptions("post-edits", campaign=campaign))
    assert [str(problem) for problem in failure.value.problems] == [
        'other.tsv line 2, field "src": the source differs from the one campaign "PE" holds '
        "for segment 1 of document d1 (imported before); an import adds post-edits and never "
        "changes stored texts",
        'other.tsv line 3, field "mt": the MT output differs from the one campaign "PE" holds '
        "for system A's output on segment 2 of document d1 (imported before); an import adds "
        "post-edits and never changes stored texts",
    ]
    assert Judgment.objects.count() == 6


def test_a_campaign_of_another_kind_is_refused():
    run("hand.tsv", name="DA")
    Campaign.objects.filter(name="DA").update(kind=TaskKind.DIRECT_ASSESSMENT)
    assert refused("plain.tsv", name="DA") == [
        'field "name": campaign "DA" holds direct-assessment judgments and this file '
        "post-editing ones; choose another name for a new campaign"
    ]


def test_a_dry_run_writes_nothing():
    summary = import_judgments(
        [fixture("hand.tsv")],
        ImportOptions("post-edits", name="PE", language_pair="de-en"),
        dry_run=True,
    )
    assert summary.message == (
        "Checked hand.tsv: no problems. Importing would add 6 judgments (2 workers, 4 "
        'assignments, 2 HITs, 2 systems, 2 segments) to new campaign "PE" (post-editing, '
        "HTER with tercom's defaults); nothing was written."
    )
    assert nothing_written()
