"""The alert rules the project ships (deploy/prometheus/), checked and tested by Prometheus' promtool.

``promtool test rules`` feeds each alert series that must fire it and series that must not
(``alerts_test.yml``); here it runs, every alert is asked to have a test and a section in
docs/operations.md, and the sample ``prometheus.yml`` loads the rules. In CI a missing
``promtool`` (Debian's ``prometheus``, installed by ``scripts/test``) fails the test.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.needs import missing

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus"


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        missing("promtool", "install Debian's prometheus package (scripts/test does)")
    return str(found)


def _run(*args: str) -> str:
    done = subprocess.run(
        [_promtool(), *args], cwd=RULES, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _alerts() -> list[str]:
    return re.findall(r"^\s*- alert: (\w+)$", (RULES / "alerts.yml").read_text(), re.M)


def test_the_rules_and_the_sample_configuration_load() -> None:
    assert "SUCCESS" in _run("check", "rules", "alerts.yml")
    assert "SUCCESS" in _run("check", "config", "prometheus.yml")


def test_each_alert_fires_when_it_should_and_not_before() -> None:
    assert "SUCCESS" in _run("test", "rules", "alerts_test.yml")


def test_every_alert_is_tested_firing_and_explained_in_the_operations_doc() -> None:
    tests = (RULES / "alerts_test.yml").read_text()
    fired = set(re.findall(r"alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels", tests))
    silent = set(re.findall(r"alertname: (\w+)\n\s+exp_alerts: \[\]", tests))
    operations = (ROOT / "docs" / "operations.md").read_text()
    alerts = _alerts()
    assert len(alerts) >= 10
    for alert in alerts:
        assert alert in fired, f"{alert}: no test where it fires"
        assert alert in silent, f"{alert}: no test where it stays silent"
        assert f"**{alert}**" in operations, f"{alert}: not explained in docs/operations.md"


def test_every_metric_an_alert_reads_is_one_the_site_serves() -> None:
    """A renamed metric would leave its alert reading nothing: silent for good."""
    source = "\n".join(
        p.read_text() for p in (ROOT / "sitemetrics" / "instruments.py", ROOT / "rummy_site" / "metrics.py")
    )
    read = set(re.findall(r"\b(rummy_\w+)", (RULES / "alerts.yml").read_text()))
    assert len(read) >= 10
    for name in read:
        base = re.sub(r"_(bucket|count|sum)$", "", name)
        assert f'"{base}"' in source, f"alerts.yml reads {name}, which the site does not serve"
