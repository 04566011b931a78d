"""The staff side of the admin (issues 14 and 23, docs/staff.md), a module a page: the audit
trail (``trail``), the game page with cancel and the recorded view of live hands (``games``),
tables and their settings (``tables``), accounts by role (``players``) and what is kept beside
them (``player_records``), wallet adjustments under money controls (``wallets``), the fair-play
pages' actions (``integrity``) and recorded replays (``deal_replays``). Every page that writes
asks a reason for the trail (``reasons``). The pages of other apps' models are registered by
those apps; what staff do there is a part composed over them (``core.admin_parts``), so that
only this app depends on the staff services."""

from django.contrib import admin

from staff.admin import (  # noqa: F401  # each module declares its parts and pages
    games,
    integrity,
    player_records,
    players,
    tables,
    trail,
    wallets,
)
from staff.export import export_csv

#: Every list may be exported to CSV by whoever may view it (staff.export: asks why, recorded).
admin.site.add_action(export_csv, "export_csv")
