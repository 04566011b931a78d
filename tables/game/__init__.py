"""The game's use cases: seating, play, the record of each move, settlement, timers and bots.

They change the tables' rows and say so to the channel layer (``notify``), and know nothing of
the sockets that listen: the realtime transport (``tables.realtime``) and the site's wiring sit
above them and call in, never the other way.
"""
