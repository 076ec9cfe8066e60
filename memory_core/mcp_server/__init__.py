"""The memory served over the Model Context Protocol (``python -m memory_core mcp``).

``make_server(services, app_url)`` builds the server (``server.py``) over the one services
facade; ``http_app(server)`` serves it over streamable HTTP behind the API-token check
(``auth.py``, which also decides who a stdio server runs as); ``results.py`` holds the tools'
typed results. Named ``mcp_server`` so that it never shadows the SDK's ``mcp`` package.
"""

from memory_core.mcp_server.server import DEFAULT_APP_URL, MemoryTools, http_app, make_server

__all__ = ["DEFAULT_APP_URL", "MemoryTools", "http_app", "make_server"]
