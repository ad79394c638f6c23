"""`is_live()`: whether the run targets a live account (True) or recordings/emulator.

test_config sets `is_live._cache` itself (False when ACCOUNT_HOST is the emulator's
https://localhost:8081/), so the function only has to honour that attribute.
"""
import os


def is_live():
    if not hasattr(is_live, "_cache"):
        is_live._cache = os.environ.get("AZURE_TEST_RUN_LIVE", "").lower() in ("1", "true", "yes")
    return is_live._cache
