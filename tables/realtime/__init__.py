"""The realtime transport: the consumers, who holds which socket, presence, resync and the lobby feed.

A socket is a view of the game, never its record: these modules carry what the use cases
(``tables.game``) decided to the pages and take the players' actions back to them, so that a lost
frame or a restarted process costs a rebuild from the database, never a move.
"""
