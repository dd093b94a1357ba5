"""What every websocket shares: the life of an accepted socket, its rate-limited reader
and sequence numbers (serve.py), one connection's outbox (connection.py), and the checking
of client messages (protocol.py). Knows no feature."""
