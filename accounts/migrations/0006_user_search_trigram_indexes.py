"""Staff find players by part of a name or e-mail address (the users list, the ledger accounts'
search): on PostgreSQL, trigram indexes serve Django's ``icontains`` (``UPPER(col) LIKE
UPPER('%term%')``) without reading every account (issue 27). pg_trgm is a trusted extension
(PostgreSQL 13+): the database's owner may create it. Accounts change seldom, so the indexes cost
little to keep. SQLite gets none."""

from __future__ import annotations

from django.db import migrations

FORWARD = """
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS accounts_user_username_trgm ON accounts_user USING gin (UPPER(username) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS accounts_user_display_name_trgm ON accounts_user USING gin (UPPER(display_name) gin_trgm_ops);
CREATE INDEX IF NOT EXISTS accounts_user_email_trgm ON accounts_user USING gin (UPPER(email) gin_trgm_ops);
"""

BACKWARD = """
DROP INDEX IF EXISTS accounts_user_username_trgm;
DROP INDEX IF EXISTS accounts_user_display_name_trgm;
DROP INDEX IF EXISTS accounts_user_email_trgm;
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_email_unique_any_case")]

    operations = [migrations.RunPython(forward, backward)]
