"""Migration operations the apps share. Here, in the lowest app, so that every app's migrations may
use them (the apps are layered, pyproject.toml's import-linter contract)."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.operations import AddIndexConcurrently


class AddIndexWhileServing(AddIndexConcurrently):
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, so that building an index on a big table does
    not hold its writes (the tables keep playing); a plain ``CREATE INDEX`` elsewhere (SQLite, the
    embedded setup). Its migration must say ``atomic = False``."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
            return
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.add_index(model, self.index)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
            return
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            index = from_state.models[app_label, self.model_name_lower].get_index_by_name(self.index.name)
            schema_editor.remove_index(model, index)
