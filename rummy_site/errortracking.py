"""Error tracking through sentry-sdk, on only when ``SENTRY_DSN`` is set (rummy_site/settings.py).

Without a DSN nothing is imported or started, so a test or a laptop sends nothing anywhere.
With one, the SDK's Django, Celery and logging integrations (enabled on their own when those
packages are present) report unhandled exceptions and ``logger.error`` lines with the request
and task they happened in. No performance tracing: the site's latency is in its logs.
"""

from __future__ import annotations

from typing import Any


def init_sentry(dsn: str, *, environment: str, **options: Any) -> None:
    """Start sentry-sdk for this process (each Daphne, the worker, beat, a management command)."""
    import sentry_sdk

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        traces_sample_rate=0.0,
        send_default_pii=False,  # no cookies, addresses or user names leave the site
        **options,
    )
