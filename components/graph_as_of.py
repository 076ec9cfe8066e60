"""The graphs as they stood on a date, for the Graphs page: the rule and the cut live in
``memory_core.as_of`` (the records filter and ``export --as-of`` use the same); the page asks the
services for the records as of that day and cuts the graph it holds with them.
"""

from __future__ import annotations

from memory_core.as_of import AsOf, entity_graph_as_of, event_graph_as_of, graph_as_of, node_names, said_by

__all__ = ["AsOf", "entity_graph_as_of", "event_graph_as_of", "graph_as_of", "node_names", "said_by"]
