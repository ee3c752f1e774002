"""Fixtures of the play tests: headless Chromium."""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture
def chromium() -> str:
    """The headless browser: a failure on CI, a skip elsewhere (scripts/setup-test-env.sh)."""
    for c in ("chromium", "/usr/bin/chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(c) or (c if os.path.isfile(c) else None)
        if p:
            return p
    if os.environ.get("CI"):
        pytest.fail("chromium is missing: scripts/setup-test-env.sh should have installed it")
    pytest.skip("chromium is not installed (run scripts/setup-test-env.sh)")
