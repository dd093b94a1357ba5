"""The analysis board and game review: the rules of a line and the review's judgments
(rules.py), the engine's lines for each board in turn and the reviews (service.py), and the
websocket ``/ws/analysis`` (socket.py)."""
