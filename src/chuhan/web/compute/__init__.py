"""The server's computing: worker processes with deadlines that die with the server, and
streaming jobs (workers.py); the computer players' moves and the analyses searched in them
(service.py). Nothing here knows a game room or a socket."""
