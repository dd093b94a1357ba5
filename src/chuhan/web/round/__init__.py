"""One live game on the server (a *round*, as lichess calls it): the room that is its
single writer (:mod:`.room`), the players' actions (:mod:`.actions`), its clocks and
timers (:mod:`.timers`), the computer player (:mod:`.computer`), what is shown of it
(:mod:`.view`), and the manager of all rooms (:mod:`.manager`)."""
