"""The whole crowd-translation loop in Chromium (issue 15 item 6): a translator translates a
HIT by typing, seeing the sources only as pictures (the page's HTML, every JSON answer it
fetched and a select-all of its text hold no source sentence); a second translator pastes the
imported MT output into two boxes (real paste events from the clipboard, which the page counts)
and is flagged by the similarity check; a Detect-MT worker says "machine made" for the second
translator's translations and "human" for the first's; the recompute then excludes the second
translator (flagged in 3 of 3 decided translations, over the 30% rate), the requester's Choose
translations page shows the flags, and the analysts' export holds the first translator's
translations as the kept test set, in document order.

Statistics run live: without a broker (the test setting) each submission recomputes the
campaign inline after its commit, and the recompute builds the Detect-MT HITs. The campaign,
the texts and why translator 2 pastes into two boxes of three: see
tests/integration/test_translation_pipeline.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from analytics.models import TranslationStat
from campaigns.models import Hit, HitTask
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.e2e.conftest import DEFAULT_TIMEOUT_MS
from tests.e2e.test_translate_page import selected_text, start
from tests.integration.test_translation_pipeline import (
    DOCUMENT,
    MT,
    OWN,
    PASTED,
    PASTED_POSITIONS,
    SOURCE_WORDS,
    SOURCES,
    SYSTEM,
    analyst_token,
    build_translation_campaign,
    check_api,
    check_stored,
)

pytestmark = pytest.mark.e2e


def assignment_of(page) -> Assignment:
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    return Assignment.objects.get(pk=tokens.read_assignment_token(token).assignment_id)


class Worker:
    """A new visitor (own browser context, so own session) who pressed Start and answered the
    language-background form; keeps the body of every JSON answer the page fetched."""

    def __init__(self, browser, live_server, campaign, *, clipboard: bool = False) -> None:
        self.context = browser.new_context(base_url=live_server.url)
        if clipboard:
            self.context.grant_permissions(
                ["clipboard-read", "clipboard-write"], origin=live_server.url
            )
        self.context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        self.page = self.context.new_page()
        self.bodies: list[str] = []
        # Through a route, so that the last answer is read too (the page navigates away on it).
        self.page.route(re.compile(r"/work/a/[^/]+/(item|submit)$"), self._keep)
        self.task_url = start(self.page, campaign)
        # The test reads the database after this: let the page's own requests finish first.
        self.page.wait_for_load_state("networkidle")

    def _keep(self, route) -> None:
        response = route.fetch()
        self.bodies.append(response.text())
        route.fulfill(response=response)

    def assignment(self) -> Assignment:
        return assignment_of(self.page)

    def close(self) -> None:
        self.context.close()


def wait_for_images(page) -> None:
    page.wait_for_function(
        "() => document.images.length > 0"
        " && [...document.images].every(image => image.complete && image.naturalWidth > 0)"
    )


def no_source_anywhere(worker: Worker, shown: str) -> None:
    """The sources are pictures only: not in the HTML, the JSON, the URL nor the selection
    (which does take the page's text: it holds ``shown``)."""
    page = worker.page
    html = page.content()
    selection = selected_text(page)
    assert shown in selection, selection
    for word in SOURCE_WORDS:
        assert word not in html, word
        assert word not in selection, word
        assert not any(word in body for body in worker.bodies), word
    assert worker.bodies  # the page did fetch its run
    for source in SOURCES.values():
        assert source not in page.url


def translate_by_typing(worker: Worker) -> Assignment:
    """Translator 1: types each translation; Enter saves sentences 1 and 2, the button 3."""
    page = worker.page
    assignment = worker.assignment()
    assert assignment.hit.task == HitTask.TRANSLATE
    progress = page.locator("#progress-text")
    images = page.locator("img.tr-image")
    expect(images).to_have_count(3)
    for n in (1, 2, 3):
        expect(images.nth(n - 1)).to_have_attribute("alt", f"Source sentence {n}")
    wait_for_images(page)
    for n in (1, 2):
        expect(progress).to_have_text(f"Sentence {n} of 3")
        expect(page.locator(f"#translation-{n}")).to_be_focused()
        page.keyboard.type(OWN[n])
        page.keyboard.press("Enter")
        expect(page.locator(f"#sentence-{n} .pe-edit")).to_have_text(OWN[n])
    expect(progress).to_have_text("Sentence 3 of 3")
    no_source_anywhere(worker, OWN[2])
    page.locator("#translation-3").click()
    page.keyboard.type(OWN[3])
    page.get_by_role("button", name="Save and continue").click()
    page.wait_for_url(worker.task_url)
    expect(page.locator("body")).to_contain_text("Thank you")
    no_source_anywhere(worker, "Thank you")
    assert len(worker.bodies) >= 4  # the run's item and the three saves, the last one too
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    return assignment


def translate_by_pasting(worker: Worker) -> Assignment:
    """Translator 2: copies the MT output to the clipboard and pastes it (Ctrl+V) into boxes 1
    and 2, types sentence 3."""
    page = worker.page
    assignment = worker.assignment()
    assert assignment.hit.task == HitTask.TRANSLATE
    wait_for_images(page)
    for n in (1, 2, 3):
        box = page.locator(f"#translation-{n}")
        expect(box).to_be_focused()
        if n in PASTED_POSITIONS:
            page.evaluate("text => navigator.clipboard.writeText(text)", MT[n])
            page.keyboard.press("Control+V")
            expect(box).to_have_value(MT[n])
        else:
            page.keyboard.type(PASTED[n])
        page.keyboard.press("Enter")
    page.wait_for_url(worker.task_url)
    expect(page.locator("body")).to_contain_text("Thank you")
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    return assignment


def detect_mt_in_browser(worker: Worker, machine_texts: set[str]) -> list[list[tuple[str, bool]]]:
    """The Detect-MT worker's two HITs: each translation shown with its source as a picture,
    "Yes" (looks machine made) for ``machine_texts``, "No" for the others, by clicking."""
    page = worker.page
    answered = []
    for hit_done in range(2):
        assignment = worker.assignment()
        assert assignment.hit.task == HitTask.DETECT_MT
        answers = []
        for n in (1, 2, 3):
            expect(page.locator("#progress-text")).to_have_text(f"Translation {n} of 3")
            expect(page.locator("#source img.tr-image")).to_have_attribute("alt", "Source sentence")
            text = page.locator("#translation-text").inner_text()
            machine = text in machine_texts
            page.get_by_role("radio", name="Yes" if machine else "No").check()
            page.get_by_role("button", name="Next").click()
            answers.append((text, machine))
        expect(page.locator("h1")).to_have_text("Thank you!")
        assignment.refresh_from_db()
        assert assignment.status == AssignmentStatus.SUBMITTED
        answered.append(answers)
        if hit_done == 0:
            page.get_by_role("link", name="Do another task").click()
            page.wait_for_url("**/work/a/*/")
            page.wait_for_load_state("networkidle")
    for word in SOURCE_WORDS:
        assert not any(word in body for body in worker.bodies), word
    return answered


def choose_page_rows(page, campaign) -> dict[str, dict[str, object]]:
    """The requester's Choose translations page: per translation text, its translator cell,
    flags and whether it is the kept one."""
    page.goto(f"/admin/campaigns/campaign/{campaign.pk}/translations/")
    expect(page.locator("h1")).to_contain_text("Choose translations")
    rows = {}
    for row in page.locator(".sentence tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        if len(cells) < 4:
            continue  # the "Automatic" row
        rows[cells[2].strip()] = {
            "translator": " ".join(cells[1].split()),
            "flags": row.locator(".flag").all_inner_texts(),
            "kept": "kept-row" in (row.get_attribute("class") or ""),
        }
    return rows


def test_a_typist_a_paster_and_a_detect_mt_worker_then_the_kept_test_set(
    browser, live_server, admin_page, playwright
):
    campaign = build_translation_campaign()

    # Both translators start before either submits (a Detect-MT HIT, once one exists, is
    # handed out before a translation HIT).
    typist = Worker(browser, live_server, campaign)
    paster = Worker(browser, live_server, campaign, clipboard=True)
    try:
        own = translate_by_typing(typist)
        pasted = translate_by_pasting(paster)
    finally:
        typist.close()
        paster.close()
    assert own.hit_id == pasted.hit_id and own.worker_id != pasted.worker_id

    texts = {
        (j.assignment_id, j.slot.position): j
        for j in Judgment.objects.filter(campaign=campaign).select_related("slot")
    }
    for n in (1, 2, 3):
        typed = texts[own.pk, n]
        assert typed.text == OWN[n]
        assert typed.details["keystrokes"] == len(OWN[n]) and typed.details["pastes"] == 0
        assert typed.details["seconds"] > 0
        copied = texts[pasted.pk, n]
        assert copied.text == PASTED[n]
        assert copied.details["pastes"] == (1 if n in PASTED_POSITIONS else 0), copied.details
    for n in PASTED_POSITIONS:
        # Ctrl+V is a shortcut, not typing: no keystroke, one paste.
        assert texts[pasted.pk, n].details["keystrokes"] == 0

    # The submissions' recomputes built one Detect-MT HIT per translation assignment and
    # flagged the two pasted translations by similarity; two decided flags do not exclude.
    assert Hit.objects.filter(campaign=campaign, task=HitTask.DETECT_MT).count() == 2
    similar = TranslationStat.objects.filter(campaign=campaign, similar=True)
    assert sorted(similar.values_list("judgment__text", flat=True)) == sorted(
        MT[n] for n in PASTED_POSITIONS
    )
    assert not CampaignWorker.objects.filter(campaign=campaign, excluded=True).exists()

    voter = Worker(browser, live_server, campaign)
    try:
        answered = detect_mt_in_browser(voter, set(PASTED.values()))
    finally:
        voter.close()
    assert sorted(answered) == sorted(
        [[(OWN[n], False) for n in (1, 2, 3)], [(PASTED[n], True) for n in (1, 2, 3)]]
    )

    # The last vote's recompute excluded translator 2 and kept translator 1's translations.
    check_stored(campaign, own.worker_id, pasted.worker_id)
    externals = {a.worker_id: a.worker.external_id for a in (own, pasted)}

    # The requester's page: every translation with its flags, the paster excluded.
    rows = choose_page_rows(admin_page, campaign)
    assert set(rows) == set(OWN.values()) | set(PASTED.values())
    for n in (1, 2, 3):
        assert rows[OWN[n]] == {"translator": externals[own.worker_id], "flags": [], "kept": True}
        flags = ["machine made (1 of 1 votes)"]
        if n in PASTED_POSITIONS:
            flags.append(f"100.0 chrF to system {SYSTEM}")
        assert rows[PASTED[n]] == {
            "translator": f"{externals[pasted.worker_id]} (excluded)",
            "flags": flags,
            "kept": False,
        }

    # The analysts' API: flags, flag rates, the kept test set; and the export over HTTP from
    # the live server with an analyst's token.
    token = analyst_token(campaign)
    check_api(campaign, token, externals[own.worker_id], externals[pasted.worker_id])
    api = playwright.request.new_context(
        base_url=live_server.url, extra_http_headers={"Authorization": f"Token {token}"}
    )
    try:
        export = api.get(f"/api/campaigns/{campaign.pk}/export/testset.txt")
        assert export.status == 200
        assert export.text() == "".join(f"{OWN[n]}\n" for n in (1, 2, 3))
        docids = api.get(f"/api/campaigns/{campaign.pk}/export/testset.docids")
        assert docids.text() == f"{DOCUMENT}\n" * 3
    finally:
        api.dispose()
