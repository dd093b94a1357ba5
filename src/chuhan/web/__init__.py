"""chuhan's web app: play xiangqi and janggi in the browser against the computer, a friend
(by invite link) or on one screen; watch, import and export games.

``chuhan serve`` runs it; :func:`create_app` builds the ASGI app. The protocol between the
server and the browser is in ``docs/web-protocol.md``.

The app is imported when ``create_app`` is first asked for, not with the package: the
worker processes (compute, reads) import only the modules of their jobs, and each of them
starts sooner for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chuhan.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from chuhan.web.app import create_app

        return create_app
    raise AttributeError(f"module 'chuhan.web' has no attribute {name!r}")
