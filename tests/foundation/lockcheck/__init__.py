"""A fixture app for tests/foundation/test_migration_check.py: migrations the check must fail
(0002 to 0005) and their safe forms (0006). Installed only by that test."""
