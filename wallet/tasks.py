"""The wallet's periodic task: the whole ledger verified once a night (beat's ``check-ledger``)."""

from __future__ import annotations

import logging

from celery import shared_task

from wallet.audit import run_check

logger = logging.getLogger(__name__)


@shared_task(name="wallet.tasks.check_ledger_nightly", acks_late=True, ignore_result=True)
def check_ledger_nightly() -> bool:
    """Run ``check_ledger`` and keep its verdict for the dashboard; a problem is logged as an error."""
    check = run_check(via="nightly")
    if check.ok:
        logger.info("ledger check: sound (%.1f s)", check.seconds)
    else:
        logger.error("ledger check: %d problem(s): %s", len(check.problems), "; ".join(check.problems))
    return check.ok
