"""A TCP relay on 127.0.0.1 for the tests that run real servers: in front of a server (a
browser's pages keep their origin when it is restarted on another port), of several
(each new connection to the next that answers, as a reverse proxy without sticky sessions
does), or of a database (a cable to pull out and plug back in)."""

from __future__ import annotations

import contextlib
import socket
import threading


class Relay:
    """Relays each connection to ``target`` or, when ``targets`` is not empty, to the next
    of them in turn that answers; connections to a dead target drop. ``requests`` notes
    where each connection went and the first line it sent. ``cut()`` closes every
    connection through the relay and refuses new ones until ``plug_in()``."""

    def __init__(self, target: int = 0) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.target = target
        #: Several servers taken in turn, connection by connection (when not empty).
        self.targets: list[int] = []
        self._turn = 0
        #: ``(target port, first line)`` of every connection relayed.
        self.requests: list[tuple[int, str]] = []
        self.cut_now = False
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = None if self.cut_now else self._connect()
            if upstream is None:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            threading.Thread(target=self._first, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _connect(self) -> socket.socket | None:
        targets = list(self.targets) or [self.target]
        for _ in targets:
            port = targets[self._turn % len(targets)]
            self._turn += 1
            try:
                return socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                continue
        return None

    def _first(self, client: socket.socket, upstream: socket.socket) -> None:
        """Note where a connection went and its first line, then relay it."""
        with contextlib.suppress(OSError):
            data = client.recv(65536)
            if data:
                line = data.split(b"\r\n", 1)[0].decode("latin-1")
                self.requests.append((upstream.getpeername()[1], line))
                upstream.sendall(data)
        self._pipe(client, upstream)

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
            with self._lock:
                self._open.discard(sock)

    def cut(self) -> None:
        self.cut_now = True
        with self._lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def plug_in(self) -> None:
        self.cut_now = False

    def close(self) -> None:
        self.closed = True
        self.listener.close()
