"""E-mail addresses as the integrity signals compare them: ``accounts.emails``, where the one
sign-up bonus per mailbox reads them the same way (an app below may not import this one)."""

from __future__ import annotations

from accounts.emails import GMAIL, email_key

__all__ = ["GMAIL", "email_key"]
