from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_is_missing_a_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:  # makemigrations --check exits 1 when something is pending
        pytest.fail(f"Missing migrations (exit {exit_.code}):\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()
