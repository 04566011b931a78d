"""Sign-out closes sockets: log-out those of its session, a password change all of the user's
(deactivation, suspension and self-exclusion close them through ``accounts.play.play_blocked``).

Imported by ``tables.apps`` before the models load: the user model is named, not imported.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import pre_save
from django.dispatch import receiver

from tables.realtime import sockets


@receiver(user_logged_out)
def close_sockets_on_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """The session ends first, then its sockets are closed, all before the log-out answers.

    Django sends this signal before it flushes the session; the session is deleted here already
    (the flush that follows finds it gone). So a socket that opens meanwhile either joined the
    session's group before the close was sent, or finds the session gone when it checks it after
    joining (``tables.realtime.socket_base.SocketConsumer.admit``): none outlives the log-out. An action that a socket
    had queued is refused as soon as the session is gone (``restrictions.check_may_play``).
    """
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if key and session is not None:
        session.delete(key)
        sockets.close_session_sockets(key)
    elif user is not None:
        sockets.close_user_sockets(user.pk)


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def close_sockets_on_password_change(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``set_password`` keeps the raw password in ``_password`` until the save: the sign of a change."""
    if instance.pk is not None and getattr(instance, "_password", None) is not None:
        user_id = instance.pk
        transaction.on_commit(lambda: sockets.close_user_sockets(user_id))
