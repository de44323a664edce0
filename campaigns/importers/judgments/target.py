"""Which campaign an import goes into, and the checks of the files against it.

An import either creates an "imported" campaign (``Campaign.imported_from`` = the format,
status finished: nothing is handed out) or, when it names one, adds to an existing imported
campaign of the same kind that the importer may change. Collected campaigns are never
imported into: their judgments come from their own task pages.

Names are unique per owner, not site-wide (issue 11 item 8; ``campaigns.names``). A name is
looked up among the campaigns the importer may change: their own campaign of that name first,
else the one campaign of that name they may change; several (other owners' campaigns shared
with them, or every campaign for a superuser or a command) are refused, listing their ids and
owners, and the campaign is chosen by its id instead. A name used only by campaigns the
importer cannot see is simply free for them: the new campaign is theirs and named as asked,
whether the dry run or the import, exactly as for a name nobody uses. A campaign the importer
can see but not change (or their own, when they may not change it) is named as taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from campaigns import kinds, names
from campaigns.importers.judgments.kinds import judgment_import, kind_label
from campaigns.importers.judgments.languages import language_code
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.validation import file_languages
from campaigns.importers.problems import ProblemList
from campaigns.models import Campaign, CampaignStatus
from judgments.models import Assignment


@dataclass(frozen=True)
class ImportOptions:
    """What the person importing says, besides the files, and what they may do.

    ``name``: the campaign to create, or an existing imported campaign to add to;
    ``campaign``: an existing imported campaign chosen directly (the admin's list).
    ``source_language``/``target_language``: the new campaign's language codes (default: the
    file's, when it names its languages by code). ``standardised``: the scores are z-scores
    (WMT's ``*-stnd`` files), not raw 0-100. ``owner``: the new campaign's owner.
    ``appendable``: the campaigns the importer may change (None: any). Judgment files are
    added only to the imported ones among them; an MTurk batch reconciles assignments of any
    of them, collected campaigns included. ``visible``: the campaigns whose existence the
    importer may know (None: any), for the answer to a taken name. ``may_create``: whether
    the importer may create a campaign. ``language_pair`` ("de-en"): the one pair to import
    from a file holding several (rows of the others are skipped); it also gives a new
    campaign's language codes. ``reference_system``: the system of a ranking file that is
    the human reference (default: the one named ``_ref`` or ``ref``, if any).
    ``workers_counted`` (direct assessment; issue 12): "everyone" for judgments that were
    filtered before (WMT's "good" files) or carry no quality-control items, so that every
    worker counts in the system table; "reliable" to test each worker; "" (default) lets the
    kind decide from the files (direct assessment: everyone when they hold no bad reference).
    """

    fmt: str
    name: str = ""
    campaign: Campaign | None = None
    source_language: str = ""
    target_language: str = ""
    standardised: bool = False
    owner: Any = None
    appendable: QuerySet[Campaign] | None = None
    visible: QuerySet[Campaign] | None = None
    may_create: bool = True
    language_pair: str = ""
    reference_system: str = ""
    workers_counted: str = ""

    def may_add_to(self, campaign: Campaign) -> bool:
        return self.appendable is None or self.appendable.filter(pk=campaign.pk).exists()

    def may_see(self, campaign: Campaign) -> bool:
        return self.visible is None or self.visible.filter(pk=campaign.pk).exists()

    def changeable(self) -> QuerySet[Campaign]:
        return Campaign.objects.all() if self.appendable is None else self.appendable


def cannot_create_message(name: str) -> str:
    """Why an importer who may not create campaigns gets nothing: the same words whether a
    campaign of that name exists (that they cannot change) or not."""
    return (
        f'no campaign you may import into is named "{name}", and creating a campaign needs '
        "the permission to add campaigns (campaigns.add_campaign)"
    )


def resolve_campaign(
    options: ImportOptions, parsed: ParsedJudgments, problems: ProblemList
) -> Campaign | None:
    """The campaign to import into: existing (checked) or new (unsaved); None after problems."""
    existing = options.campaign
    if existing is not None:
        if not options.may_add_to(existing):
            problems.add(None, None, "campaign", "you cannot import into this campaign")
            return None
        return existing if check_existing(existing, options, parsed, problems) else None
    name = options.name.strip()
    if not name:
        problems.add(None, None, "name", "give the new campaign a name")
        return None
    changeable = names.named(name, options.changeable())
    existing = _meant(changeable, options.owner)
    if existing is not None:
        return existing if check_existing(existing, options, parsed, problems) else None
    if changeable:
        problems.add(
            None, None, "name", names.ambiguity(name, changeable, whose=" you may import into")
        )
        return None
    # The name space of the new campaign (its owner's campaigns: the unique constraint), and
    # the campaigns the importer may see. Other owners' campaigns they cannot see do not count.
    taken = None
    if options.owner is not None:
        taken = names.same_owner_campaign(name, options.owner)
    if taken is None and options.visible is not None:
        taken = options.visible.filter(name=name).first()
    elif taken is None:
        taken = Campaign.objects.filter(name=name).first()
    if taken is not None:
        problems.add(
            None,
            None,
            "name",
            f'the name "{name}" is taken by a campaign you cannot import into; choose '
            "another name for a new campaign",
        )
        return None
    if not options.may_create:
        problems.add(None, None, "name", cannot_create_message(name))
        return None
    # A name used only by campaigns the importer cannot see is free for them (issue 11, item
    # 8): names are unique per owner, so the new campaign, theirs, gets it in the dry run and
    # in the import alike. (Renaming it, "X (2)" with renamed_from, and later refusing it at
    # the write told them that such a campaign exists.)
    return new_campaign(options, parsed, problems, name)


def _meant(campaigns: list[Campaign], owner: Any) -> Campaign | None:
    """Which of the changeable ``campaigns`` of one name the name means: the owner's own, else
    the only one; None for none or several."""
    owner_pk = getattr(owner, "pk", None)
    own = [c for c in campaigns if owner_pk is not None and c.owner_id == owner_pk]
    if own:
        return own[0]
    return campaigns[0] if len(campaigns) == 1 else None


def check_existing(
    campaign: Campaign, options: ImportOptions, parsed: ParsedJudgments, problems: ProblemList
) -> bool:
    """Can ``parsed`` be added to ``campaign``? Reports why not."""
    label = f'campaign "{campaign.name}"'
    if not campaign.imported_from:
        problems.add(
            None,
            None,
            "name",
            f"{label} was run here, not imported: judgment files are imported into campaigns "
            "of imported judgments only; choose another name for a new campaign",
        )
        return False
    if campaign.kind != parsed.kind:
        problems.add(
            None,
            None,
            "name",
            f"{label} holds {kind_label(campaign.kind)} judgments and this "
            f"file {kind_label(parsed.kind)} ones; choose another name for a new campaign",
        )
        return False
    ok = True
    for field, given, stored in (
        ("source_language", options.source_language, campaign.source_language),
        ("target_language", options.target_language, campaign.target_language),
    ):
        if given and given != stored:
            problems.add(
                None,
                None,
                field,
                f"{label} is {campaign.source_language}-{campaign.target_language}, not "
                f"{options.source_language or campaign.source_language}-"
                f"{options.target_language or campaign.target_language}",
            )
            ok = False
    selected = parsed.selected_pair
    if selected is not None and selected != (
        language_code(campaign.source_language),
        language_code(campaign.target_language),
    ):
        problems.add(
            None,
            None,
            "language_pair",
            f"{label} is {campaign.source_language}-{campaign.target_language}, not "
            f"{'-'.join(selected)}",
        )
        ok = False
    # The kind's own checks: for direct assessment, the scale and the assessment mode.
    ok = judgment_import(parsed.kind).check_target(campaign, options, parsed, problems) and ok
    return check_assignments_are_new(campaign, parsed, problems) and ok


def check_assignments_are_new(
    campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList
) -> bool:
    """No worker's judgments of a HIT (by its natural key, ``HitRecord.external_id``) may be
    in the campaign already: importing the same file twice would count every judgment twice.
    The check is per worker and HIT, so other workers' judgments of a HIT imported before
    (WMT's files of good and of bad workers share HITs; other annotators of a ranking set)
    are new. Each repeat is reported on the line of the worker's first judgment of the HIT;
    one query, whatever the size of the campaign or the file."""
    if campaign.pk is None:
        return True
    stored = set(
        Assignment.objects.filter(campaign=campaign)
        .exclude(platform_hit_id="")
        .values_list("platform_hit_id", "worker__external_id")
    )
    if not stored:
        return True
    seen: set[tuple[str, str]] = set()
    again = 0
    for record in parsed.judgments:
        pair = (record.worker, record.hit)
        if pair in seen:
            continue
        seen.add(pair)
        hit = parsed.hits[record.hit]
        if hit.external_id and (hit.external_id, record.worker) in stored:
            problems.add(
                record.file,
                record.line,
                hit.key_field,
                f"worker {record.worker}'s judgments in {hit.label} are already in campaign "
                f'"{campaign.name}" (imported before); importing them again would count them '
                "twice",
            )
            again += 1
    return not again


def new_campaign(
    options: ImportOptions, parsed: ParsedJudgments, problems: ProblemList, name: str
) -> Campaign | None:
    """The new campaign named ``name`` (unsaved), or None after problems."""
    languages = (options.source_language, options.target_language)
    if not all(languages) and parsed.selected_pair is not None:  # the option language_pair
        languages = (
            languages[0] or parsed.selected_pair[0],
            languages[1] or parsed.selected_pair[1],
        )
    if not all(languages):
        from_file = file_languages(parsed)
        if from_file is None:
            if problems:  # the file's own problems (several pairs, broken rows) come first
                return None
            problems.add(
                None,
                None,
                "source_language",
                "give the source and target language codes (e.g. cs and en): "
                + _languages_found(parsed),
            )
            return None
        languages = (
            options.source_language or from_file[0],
            options.target_language or from_file[1],
        )
    settings = judgment_import(parsed.kind).new_campaign_settings(parsed)
    # Redundancy is what the file shows: the most workers any of its HITs had.
    per_hit: dict[str, int] = {}
    for _, hit in parsed.assignments():
        per_hit[hit] = per_hit.get(hit, 0) + 1
    created = kinds.new_campaign(
        kind=parsed.kind,
        settings=settings,
        name=name,
        redundancy=min(max(per_hit.values(), default=1), 100),
        status=CampaignStatus.FINISHED,
        status_reason="Judgments imported from published files; nothing is handed out.",
        imported_from=options.fmt,
        owner=options.owner,
        source_language=languages[0],
        target_language=languages[1],
    )
    campaign = created.campaign
    try:
        created.full_clean(validate_unique=False)
    except ValidationError as error:
        for field, messages in error.message_dict.items():
            for message in messages:
                problems.add(None, None, None if field == "__all__" else field, message)
        return None
    return campaign


def _languages_found(parsed: ParsedJudgments) -> str:
    if not parsed.language_pairs:
        return "the file does not name its languages"
    pair = next(iter(parsed.language_pairs))
    return f'the file names its languages "{"-".join(pair)}", which are not language codes'
