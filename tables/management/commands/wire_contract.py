"""Write what is made from the wire contract: docs/protocol.md's events, messages and errors
tables and static/js/contract.schema.json (``tables.wiredocs``); ``--check`` only compares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.wiredocs import generated_files


class Command(BaseCommand):
    help = "Regenerate docs/protocol.md's generated sections and static/js/contract.schema.json."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="fail if a file differs; write nothing")

    def handle(self, *args: Any, check: bool = False, **options: Any) -> None:
        stale = []
        for path, text in generated_files(Path(settings.BASE_DIR)).items():
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current == text:
                continue
            stale.append(str(path.relative_to(settings.BASE_DIR)))
            if not check:
                path.write_text(text, encoding="utf-8")
        if check and stale:
            raise CommandError(f"out of date (run manage.py wire_contract): {', '.join(stale)}")
        self.stdout.write(("written: " if stale else "up to date: ") + (", ".join(stale) or "everything"))
