"""Signals of the accounts app, for the apps above it."""

from __future__ import annotations

from django.dispatch import Signal

#: A new account was made from ``request`` (sent before its first log-in); args ``user``, ``request``.
signed_up = Signal()
