"""axe-core in a page: the WCAG rules every page of the site is audited by, and its verdict."""

from __future__ import annotations

from tests.e2e.conftest import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

#: axe's verdict, shortened to what a report needs: each rule, and its first nodes with why they fail.
RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, count: v.nodes.length,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' ')),
  }));
}
"""
