"""The HTTP side of the web server: pages, the REST API and its request checking. Each
endpoint is a module-level coroutine that reads the server's
:class:`~chuhan.web.context.ServerContext` from the app; :data:`ROUTES` lists them."""
