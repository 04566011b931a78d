"""The site's log lines: one JSON object a line, carrying the request, user, table and game they
belong to (docs/operations.md, "Logs"). Plain Python: every app and process imports it."""
