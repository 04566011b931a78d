"""collectstatic writes brotli files for what players load and gzip alone for staff's bundles."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.test import override_settings

from rummy_site.static_storage import PLAYERS_FOLDERS


def test_players_files_get_br_and_gz_and_the_admins_gz_only(tmp_path: Path) -> None:
    storages = {"staticfiles": {"BACKEND": "rummy_site.static_storage.SiteStaticStorage"}}
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=storages, DEBUG=False):
        call_command("collectstatic", interactive=False, verbosity=0)
    br = {p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob("*.br")}
    gz = {p.relative_to(tmp_path).parts[0] for p in tmp_path.rglob("*.gz")}
    assert {"js", "css"} <= br <= set(PLAYERS_FOLDERS)
    assert {"js", "css", "admin"} <= gz
    assert any(tmp_path.glob("js/table.*.js.br"))  # the hashed name too, the one pages load
