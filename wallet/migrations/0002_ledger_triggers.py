"""PostgreSQL enforcement of the ledger's invariants, independent of the Python code.

- ``wallet_entry_balanced``: a DEFERRABLE INITIALLY DEFERRED constraint trigger,
  checked at commit, refusing any transaction whose entries do not sum to zero.
- ``*_append_only``: UPDATE and DELETE on entries and transactions are refused.
  TRUNCATE fires no row triggers, so test teardown (flush) still works.
- Non-negative wallet/escrow balances and the unique idempotency key are plain
  constraints from 0001 (enforced on every database).

SQLite gets none of this (its flush deletes rows, which a DELETE trigger would break).
"""

from __future__ import annotations

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION wallet_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'wallet ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER wallet_entry_append_only
    BEFORE UPDATE OR DELETE ON wallet_entry
    FOR EACH ROW EXECUTE FUNCTION wallet_refuse_change();

CREATE TRIGGER wallet_ledgertransaction_append_only
    BEFORE UPDATE OR DELETE ON wallet_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallet_refuse_change();

CREATE OR REPLACE FUNCTION wallet_check_transaction_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM wallet_entry WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'wallet ledger transaction % does not balance: its entries sum to %',
            NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER wallet_entry_balanced
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_transaction_balanced();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS wallet_entry_balanced ON wallet_entry;
DROP FUNCTION IF EXISTS wallet_check_transaction_balanced();
DROP TRIGGER IF EXISTS wallet_ledgertransaction_append_only ON wallet_ledgertransaction;
DROP TRIGGER IF EXISTS wallet_entry_append_only ON wallet_entry;
DROP FUNCTION IF EXISTS wallet_refuse_change();
"""


def _run_on_postgresql(sql: str):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    def run(apps, schema_editor) -> None:  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)  # None: simple protocol, several statements

    return run


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_initial")]

    operations = [
        migrations.RunPython(_run_on_postgresql(FORWARD), _run_on_postgresql(BACKWARD), elidable=False),
    ]
