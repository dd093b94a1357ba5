"""The lobby: seeks, quick pairing, challenges and the games they start (service.py), and
its websocket ``/ws/lobby`` (socket.py). The lobby uses the round; the round never uses
the lobby."""
