"""The Django plumbing every app uses and no rule: migration operations for big tables, the admin's
base classes and paging, database cursors and threads, the socket's auth stack, the Celery app.

Nothing here knows an app above it (an import-linter layer in pyproject.toml): the apps import it,
it imports none of them.
"""
