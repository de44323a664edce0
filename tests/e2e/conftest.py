"""Playwright fixtures: Debian's Chromium driving pytest-django's ``live_server``.

Every test in tests/e2e is marked ``e2e``. ``page`` gives a fresh browser context (no cookies)
per test, with ``base_url`` set to the live server, so ``page.goto("/admin/")`` works.
``admin_page`` is a page already logged in as ``admin_user`` through the real admin form.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_services

# Playwright's sync API runs an asyncio event loop in the test's thread, and Django refuses ORM
# calls from a thread with a running loop (SynchronousOnlyOperation). The tests only touch the
# database between browser calls, never concurrently with them, so this is safe here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

# A passing wait returns as soon as its condition holds, so a long limit costs a green run
# nothing; CI's machine runs a test process per core beside Chromium, and a ranking page's three
# sequential saves plus the completion page took over 5 s there (playwright's default for
# expect), with the first recompute of a process loading the compiled TrueSkill kernel.
DEFAULT_TIMEOUT_MS = 20_000
ADMIN_USERNAME = "e2e-admin"
ADMIN_PASSWORD = "e2e-admin-password-7f3k"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps calling Google's servers, which floods a closed network.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

E2E_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def playwright(chromium_path: str):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require_services(
            "The e2e tests need the playwright Python package",
            "Install the dev extras: pip install -e '.[dev]'",
        )
    from playwright.sync_api import expect

    expect.set_options(timeout=DEFAULT_TIMEOUT_MS)  # every test's expect(...), whatever its page
    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="session")
def browser(playwright, chromium_path: str):
    """One headless Chromium for the session (Debian's binary; playwright downloads nothing)."""
    browser = playwright.chromium.launch(
        executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


@pytest.fixture
def page(browser, live_server) -> Iterator:
    """A page in a new browser context per test, its relative URLs on the live server."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def admin_user(transactional_db, django_user_model):
    """A superuser with a known password (overrides pytest-django's ``admin_user``)."""
    return django_user_model.objects.create_superuser(
        username=ADMIN_USERNAME, email="e2e-admin@example.org", password=ADMIN_PASSWORD
    )


def log_in_to_admin(page, username: str = ADMIN_USERNAME, password: str = ADMIN_PASSWORD):
    """Log in through the real admin login form; return the page showing the admin index."""
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("input[type=submit]")
    return page


@pytest.fixture
def admin_page(page, admin_user):
    """A page logged in as ``admin_user`` through the admin login form, on the admin index."""
    return log_in_to_admin(page)
