"""``{% module_preloads "js/table.js" %}``: a ``modulepreload`` link for every module the entry reaches;
``{% inline_script "js/early.js" %}``: a small script written into the page itself.

Placed in a page's head, it lets the browser fetch the entry's whole module graph in one round trip
instead of one per level of imports (rummy_site/module_graph.py). The graph is read from the files
the browser is served: the sources with ``DEBUG`` on, at every page (they change under a running
server); after ``collectstatic``, the collected copies, once per process (an entry collected as a
bundle reaches nothing more). The URLs are the storage's (content-hashed after ``collectstatic``).

A script inlined runs as the parser reaches it, without a request of its own: for what must start
before anything else has come (the table's socket). It is the served copy (minified after
``collectstatic``), allowed by the Content-Security-Policy's nonce for the page.
"""

from __future__ import annotations

import functools

from django import template
from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.templatetags.static import static
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from rummy_site.module_graph import module_graph
from rummy_site.static_storage import read_static

register = template.Library()


def read_served(name: str) -> str:
    """A module as the browser is served it: its collected copy, or its source where nothing is
    collected (``DEBUG``, the tests)."""
    if isinstance(staticfiles_storage, ManifestFilesMixin):
        with staticfiles_storage.open(name) as collected:
            return bytes(collected.read()).decode("utf-8")
    return read_static(name)


def imported(entry: str) -> tuple[str, ...]:
    """The modules ``entry`` imports, directly or not (the entry itself is the page's script)."""
    return tuple(module_graph(entry, read_served)[1:])


preloaded = functools.cache(imported)


@register.simple_tag
def module_preloads(*entries: str) -> SafeString:
    """Every module the page's entries reach, each once (the entries are the page's scripts)."""
    read = imported if settings.DEBUG else preloaded
    names = dict.fromkeys(n for entry in entries for n in read(entry) if n not in entries)
    return format_html_join("\n", '<link rel="modulepreload" href="{}">', ((static(n),) for n in names))


def served_script(name: str) -> str:
    """The script ``name`` as the browser is served it, to be written inside a ``<script>``."""
    source = read_served(name).strip()
    if "</script" in source.lower() or "<!--" in source:
        raise ValueError(f"{name} would end or confuse the <script> it is inlined in")
    return source


inlined = functools.cache(served_script)


@register.simple_tag(takes_context=True)
def inline_script(context: template.Context, name: str) -> SafeString:
    """``name``'s code in a ``<script>`` of the page, with the page's CSP nonce."""
    code = (served_script if settings.DEBUG else inlined)(name)
    nonce = context["request"].csp_nonce
    return format_html('<script nonce="{}">{}</script>', nonce, mark_safe(code))  # noqa: S308  # the site's own script, checked above
