"""``{% module_preloads "js/table.js" %}``: a ``modulepreload`` link for every module the entry reaches.

Placed in a page's head, it lets the browser fetch the entry's whole module graph in one round trip
instead of one per level of imports (rummy_site/module_graph.py). The graph is read from the
source files once per process (at every page with ``DEBUG`` on, where the modules change under a
running server); the URLs are the storage's (content-hashed after ``collectstatic``).
"""

from __future__ import annotations

import functools
from pathlib import Path

from django import template
from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from rummy_site.module_graph import module_graph

register = template.Library()


def read_static(name: str) -> str:
    """A static file's source, found where collectstatic finds it."""
    path = finders.find(name)
    if not path:
        raise ValueError(f"no static file {name!r}")
    return Path(path).read_text(encoding="utf-8")


def imported(entry: str) -> tuple[str, ...]:
    """The modules ``entry`` imports, directly or not (the entry itself is the page's script)."""
    return tuple(module_graph(entry, read_static)[1:])


preloaded = functools.cache(imported)


@register.simple_tag
def module_preloads(*entries: str) -> SafeString:
    """Every module the page's entries reach, each once (the entries are the page's scripts)."""
    read = imported if settings.DEBUG else preloaded
    names = dict.fromkeys(n for entry in entries for n in read(entry) if n not in entries)
    return format_html_join("\n", '<link rel="modulepreload" href="{}">', ((static(n),) for n in names))
