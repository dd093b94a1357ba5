"""One live game on the server (a *round*, as lichess calls it): the game kept once as a
value (:mod:`.state`: ``RoundState``, ``evolve``, ``replay``, ``row_of``), the rules that
decide what a command makes happen (:mod:`.rules`: ``decide``), the room that is its single
writer (:mod:`.room`: lock, save, ack, broadcast, publish; presence, chat, timers), the
computer player (:mod:`.computer`), what is shown of it (:mod:`.view`), and the manager of
all rooms (:mod:`.manager`)."""
