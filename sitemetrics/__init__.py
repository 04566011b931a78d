"""The site's metrics in Prometheus' format (docs/operations.md, "Metrics"). Plain Python on
prometheus-client: every app and process records into it; ``rummy_site.metrics`` serves them."""
