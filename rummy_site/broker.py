"""Celery's Redis transport, with the fix that keeps the worker alive when Redis restarts.

The bug (celery 5.7.0 with kombu 5.7.0): on losing the broker,
``Consumer.on_connection_error_after_connected`` first ``collect()``s the
connection, which sets the kombu transport's ``client`` to None, and then
``close()``s it (added by celery/celery#10242, "close the broken connection
so the old socket is released"). Closing the Redis channel restores the
messages the worker holds unacknowledged (every ETA/countdown task it is
waiting on: each game's timer) and builds a new connection pool for that from
``self.connection.client``, which is now None: ``AttributeError: 'NoneType'
object has no attribute 'hostname'``. That is not one of the transport's
connection errors, so ``ignore_errors`` lets it through and the worker logs
"Unrecoverable error" and exits. No released celery or kombu fixes it yet.

The channel here remembers the connection parameters it was opened with, so the
restore reaches Redis (once it is back) and puts the held timers back on the
queue; while Redis is still down the restore fails with a connection error,
which the close ignores (the messages stay in Redis' unacked hash, and the
worker's start re-arms every game's timer: ``tables.tasks``). Used through
``CELERY_BROKER_TRANSPORT`` when ``REDIS_URL`` is set.
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):  # type: ignore[misc]  # kombu ships no types: the base class is Any
    """A Redis channel whose pool can be rebuilt after its connection was collected."""

    _conninfo: Any = None

    def _connparams(self, asynchronous: bool = False) -> Any:
        transport = self.connection
        if transport is not None and transport.client is not None:
            self._conninfo = transport.client
            return super()._connparams(asynchronous=asynchronous)
        if transport is None or self._conninfo is None:  # nothing to reconnect with: a connection error
            raise redis.ConnectionError("the broker connection was closed")
        transport.client = self._conninfo  # collected (see above): the parameters it was opened with
        try:
            return super()._connparams(asynchronous=asynchronous)
        finally:
            transport.client = None


class Transport(kombu_redis.Transport):  # type: ignore[misc]  # kombu ships no types: the base class is Any
    """kombu's Redis transport with the channel above."""

    Channel = Channel
