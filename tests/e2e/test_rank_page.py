"""The ranking page in Chromium: a worker ranks a page of 3 sets with ties, by number keys and
by mouse, is stopped with a clear message while one translation is unranked, then finishes;
a phone-sized screen works by tapping without horizontal scrolling; an answer that cannot
reach the server is kept, with the message the page brought along."""

import pytest
from playwright.sync_api import expect

from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.e2e

NASTY = '<script>alert(1)</script> & "x"'
ARABIC = "هذه جملة عربية للاختبار."
LONG_WORD = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt" * 2


def outputs_of(page, set_index):
    return page.locator(".rank-set").nth(set_index).locator(".rank-output")


def rank_button(output, rank):
    return output.get_by_role("button", name=str(rank), exact=True)


def test_a_worker_ranks_three_sets_with_ties_by_keys_and_mouse(page, transactional_db):
    campaign = ranking_campaign(
        title="Rank English translations", instructions="Best first, ties allowed."
    )
    build_ranking_hit(campaign, texts={2: NASTY, 7: ARABIC})
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    task_url = page.url

    progress, hint, error = (
        page.locator("#progress-text"),
        page.locator("#hint"),
        page.locator("#error"),
    )
    submit = page.locator("#next")
    expect(progress).to_have_text("Sets 1–3 of 3")
    expect(page.locator(".rank-set")).to_have_count(3)
    expect(page.locator(".rank-set-title").nth(1)).to_contain_text("Set 2 of 3")
    first_set = page.locator(".rank-set").nth(0)
    expect(first_set.locator("dt")).to_have_text(["Source", "Reference"])
    expect(first_set.locator("dd")).to_have_text(["Quellsatz 1.1.", "Reference sentence 1.1."])
    assert first_set.locator("dd").nth(0).get_attribute("lang") == "de"
    assert first_set.locator("dd").nth(0).get_attribute("dir") == "auto"
    expect(first_set.locator(".rank-output-label")).to_have_text(
        ["Translation A", "Translation B", "Translation C", "Translation D"]
    )
    # Texts are shown literally, in the stored order.
    assert outputs_of(page, 0).nth(1).locator(".rank-output-text").text_content() == NASTY
    assert outputs_of(page, 1).nth(2).locator(".rank-output-text").text_content() == ARABIC
    assert outputs_of(page, 1).nth(2).locator(".rank-output-text").get_attribute("dir") == "auto"
    expect(submit).to_be_disabled()
    expect(hint).to_have_text(
        "Still to rank: Set 1: all translations; Set 2: all translations; Set 3: all translations"
    )

    # Set 1 by number keys: the first translation has the focus, each key moves on.
    expect(outputs_of(page, 0).nth(0)).to_be_focused()
    for key in ("2", "1", "2", "4"):
        page.keyboard.press(key)
    expect(rank_button(outputs_of(page, 0).nth(0), 2)).to_have_attribute("aria-pressed", "true")
    expect(rank_button(outputs_of(page, 0).nth(0), 1)).to_have_attribute("aria-pressed", "false")
    expect(outputs_of(page, 1).nth(0)).to_be_focused()  # on to set 2
    page.keyboard.press("9")  # not a rank of a set of 4: nothing happens
    expect(outputs_of(page, 1).nth(0)).to_be_focused()

    # Set 2 by mouse, one tie, translation C left out; a second click changes a rank.
    rank_button(outputs_of(page, 1).nth(0), 3).click()
    rank_button(outputs_of(page, 1).nth(0), 1).click()
    rank_button(outputs_of(page, 1).nth(1), 1).click()
    rank_button(outputs_of(page, 1).nth(3), 3).click()
    expect(hint).to_have_text("Still to rank: Set 2: translation C; Set 3: all translations")

    # Set 3 by keyboard again: the arrow keys reach it, Tab goes from translation to translation.
    outputs_of(page, 1).nth(1).focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    expect(outputs_of(page, 1).nth(2)).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(outputs_of(page, 2).nth(0)).to_be_focused()
    for key in ("4", "3", "2", "1"):
        page.keyboard.press(key)

    # One translation unranked: the button stays disabled, Enter says what is missing.
    expect(submit).to_be_disabled()
    expect(hint).to_have_text("Still to rank: Set 2: translation C")
    outputs_of(page, 0).nth(0).focus()
    page.keyboard.press("Enter")
    expect(error).to_be_visible()
    expect(error).to_have_text(
        "Rank every translation before you continue. Still to rank: Set 2: translation C"
    )
    missing = outputs_of(page, 1).nth(2)
    expect(missing).to_have_class("rank-output is-missing")
    expect(missing).to_be_focused()
    expect(hint).to_have_text("")  # the message says it once
    assert Judgment.objects.count() == 0

    page.keyboard.press("3")
    expect(error).to_be_hidden()
    expect(missing).to_have_class("rank-output is-ranked")
    expect(submit).to_be_enabled()
    expect(submit).to_have_text("Submit")
    submit.click()

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assignment = Assignment.objects.get()
    assert assignment.status == AssignmentStatus.SUBMITTED
    rows = list(
        Judgment.objects.order_by("slot__position").values_list(
            "slot__position", "rank", "client_duration_ms", "server_duration_ms"
        )
    )
    assert [(position, rank) for position, rank, _, _ in rows] == list(
        zip(range(1, 13), [2, 1, 2, 4, 1, 1, 3, 3, 4, 3, 2, 1], strict=True)
    )
    assert all(row[2] is not None and row[3] is not None for row in rows)


def test_a_phone_sized_screen_has_no_horizontal_scroll_and_works_by_tapping(
    browser, live_server, transactional_db
):
    campaign = ranking_campaign(
        title=LONG_WORD[:128],
        instructions="Tap a number for each translation. " + LONG_WORD,
        outputs_per_set=5,
    )
    build_ranking_hit(campaign, outputs=5, texts={1: LONG_WORD, 2: ARABIC, 6: "Short."})
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 360, "height": 640},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = context.new_page()
        page.goto(f"/work/{campaign.pk}/")
        page.get_by_role("button", name="Start").tap()
        page.wait_for_url("**/work/a/*/")
        expect(page.locator("#progress-text")).to_have_text("Sets 1–3 of 3")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        submit = page.locator("#next")
        assert submit.bounding_box()["height"] >= 44

        for set_index in range(3):
            for n in range(5):
                output = outputs_of(page, set_index).nth(n)
                button = rank_button(output, [5, 4, 3, 1, 1][n])  # a tie at 1
                button.scroll_into_view_if_needed()
                box = button.bounding_box()
                assert box["height"] >= 44 and box["width"] >= 44
                assert box["x"] >= 0 and box["x"] + box["width"] <= 360
                expect(submit).to_be_disabled()
                button.tap()
                expect(button).to_have_attribute("aria-pressed", "true")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        expect(submit).to_be_enabled()
        submit.tap()
        expect(page.locator("h1")).to_have_text("Thank you!")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        context.close()

    ranks = list(Judgment.objects.order_by("slot__position").values_list("rank", flat=True))
    assert ranks == [5, 4, 3, 1, 1] * 3


def rank_all_by_keys(page, sets, ranks):
    """Focus the first translation and type ``ranks`` (one key per translation)."""
    outputs_of(page, 0).nth(0).focus()
    for rank in ranks[: sets * 4]:
        page.keyboard.press(str(rank))


def test_a_hit_longer_than_a_page_goes_on_with_next_and_resumes_after_a_reload(
    page, transactional_db
):
    campaign = ranking_campaign(sets_per_hit=2)
    build_ranking_hit(campaign, sets=4)

    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    progress, submit = page.locator("#progress-text"), page.locator("#next")
    expect(progress).to_have_text("Sets 1–2 of 4, page 1 of 2")
    expect(submit).to_have_text("Next")
    expect(page.locator(".rank-set-title").nth(1)).to_contain_text("Set 2 of 4")

    rank_all_by_keys(page, 2, [1, 2, 3, 4, 4, 3, 2, 1])
    expect(submit).to_be_focused()  # the last translation ranked: Enter goes on
    page.keyboard.press("Enter")

    expect(progress).to_have_text("Sets 3–4 of 4, page 2 of 2")
    expect(submit).to_have_text("Submit")
    expect(page.locator(".rank-set")).to_have_count(2)
    expect(page.locator(".rank-set-title").nth(0)).to_contain_text("Set 3 of 4")
    assert page.locator("#progress-bar").get_attribute("aria-valuenow") == "2"
    assert Judgment.objects.count() == 8

    page.reload()  # the saved sets stay saved; the page comes back where it was
    expect(progress).to_have_text("Sets 3–4 of 4, page 2 of 2")
    expect(outputs_of(page, 0).nth(0)).to_be_focused()
    rank_all_by_keys(page, 2, [2, 2, 1, 1, 3, 3, 3, 3])
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("Thank you!")
    ranks = list(Judgment.objects.order_by("slot__position").values_list("rank", flat=True))
    assert ranks == [1, 2, 3, 4, 4, 3, 2, 1, 2, 2, 1, 1, 3, 3, 3, 3]


def test_the_qualification_test_leads_to_the_first_task(page, transactional_db):
    campaign = ranking_campaign(qualification_required=True, title="Rank translations")
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2, is_qualification=True, expected={1: (1, 2), 5: (1, 1)})

    page.goto(f"/work/{campaign.pk}/")
    expect(page.locator("#entry-tasks")).to_contain_text("1 task in this campaign;")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    test_url = page.url
    expect(page.locator("#test-notice")).to_contain_text("This is a short qualification test.")
    rank_all_by_keys(page, 3, [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4])
    page.keyboard.press("Enter")

    # Straight on to the first real task: another task link, no test notice.
    page.wait_for_url(lambda url: url != test_url)
    expect(page.locator("#progress-text")).to_have_text("Sets 1–3 of 3")
    expect(page.locator("#test-notice")).to_have_count(0)
    assert Assignment.objects.get(hit__number=1).status == AssignmentStatus.STARTED
    membership = Assignment.objects.get(hit__number=2).worker.campaigns_joined.get()
    assert (membership.qualification_passed, membership.qualification_score) == (True, 1.0)


def test_answers_that_cannot_be_sent_are_kept_with_the_pages_own_message(page, transactional_db):
    campaign = ranking_campaign()
    build_ranking_hit(campaign, sets=1)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    error, submit = page.locator("#error"), page.locator("#next")
    expect(page.locator("#progress-text")).to_have_text("Set 1 of 1")

    page.route("**/submit", lambda route: route.abort())
    rank_all_by_keys(page, 1, [1, 2, 3, 4])
    submit.click()
    expect(error).to_have_text(
        "Your answers could not be sent (no connection?). They are kept: press the button "
        "again to retry."
    )
    page.unroute("**/submit")
    submit.click()
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert list(Judgment.objects.order_by("slot__position").values_list("rank", flat=True)) == [
        1,
        2,
        3,
        4,
    ]


def test_a_chinese_page_joins_its_words_with_chinese_punctuation(page, transactional_db):
    """The hint joined sets with an ASCII "; " and letters with ", ", and the progress added
    ", page 1 of 2" to a Chinese sentence: the page's language joins them now."""
    campaign = ranking_campaign(sets_per_hit=2, instructions_language="zh")
    build_ranking_hit(campaign, sets=4)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="开始").click()
    page.wait_for_url("**/work/a/*/")
    progress, hint, error = (
        page.locator("#progress-text"),
        page.locator("#hint"),
        page.locator("#error"),
    )
    expect(progress).to_have_text("第 1–2 组，共 4 组（第 1 页，共 2 页）")
    expect(hint).to_have_text("尚未排名：第 1 组：全部译文；第 2 组：全部译文")
    outputs_of(page, 0).nth(0).focus()
    for key in ("1", "2", "3", "4", "1"):  # set 1, then translation A of set 2
        page.keyboard.press(key)
    expect(hint).to_have_text("尚未排名：第 2 组：译文 B、C、D")
    outputs_of(page, 0).nth(0).focus()
    page.keyboard.press("Enter")
    expect(error).to_have_text("请先为每个译文排名再继续。尚未排名：第 2 组：译文 B、C、D")
