"""ASGI entry point served by Daphne: HTTP and the table WebSockets."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
django_asgi_app = get_asgi_application()

# Imported only after Django is set up (the routing imports models).
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from core.dbretry import auth_middleware_stack  # noqa: E402
from rummy_site.autobahn_logs import defer_frame_highlights  # noqa: E402
from rummy_site.collector import settle_long_lived_objects  # noqa: E402
from rummy_site.daphne_access import route_access_log  # noqa: E402
from rummy_site.daphne_limits import limit_send_buffer  # noqa: E402
from rummy_site.routing import websocket_urlpatterns  # noqa: E402
from rummy_site.twisted_writes import write_at_once  # noqa: E402
from rummy_site.ws_deflate import accept_deflate  # noqa: E402
from rummy_site.ws_security import SameOriginValidator  # noqa: E402

route_access_log()  # Daphne: its access lines in the site's log format (docs/operations.md, "Logs")
defer_frame_highlights()  # Daphne: autobahn's per-frame debug lines cost nothing unless written
limit_send_buffer(settings.WS_MAX_SEND_BUFFER)  # Daphne: close a socket whose client does not read
if settings.WS_WRITE_AT_ONCE:
    write_at_once()  # Daphne: a frame goes to the socket at once when nothing waits before it
if settings.WS_DEFLATE:  # Daphne: compressed frames for the browsers that offer them
    accept_deflate(settings.WS_DEFLATE_WINDOW_BITS, settings.WS_DEFLATE_MEM_LEVEL)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(auth_middleware_stack(URLRouter(websocket_urlpatterns))),
    }
)

if settings.CELERY_IN_PROCESS and os.environ.get("RUMMY_EMBEDDED_WORKER", "1") == "1":
    from rummy_site.embedded_worker import start_embedded_worker

    start_embedded_worker()


settle_long_lived_objects()
