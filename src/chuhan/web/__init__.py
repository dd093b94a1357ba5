"""chuhan's web app: play xiangqi and janggi in the browser against the computer, a friend
(by invite link) or on one screen; watch, import and export games.

``chuhan serve`` runs it; :func:`create_app` builds the ASGI app. The protocol between the
server and the browser is in ``docs/web-protocol.md``.
"""

from chuhan.web.app import create_app

__all__ = ["create_app"]
