

def run_async(main):  # type: ignore[no-untyped-def]
    """``anyio.run(main)`` in a thread of its own: the sync Playwright API of the browser tests
    leaves an event loop running in the main thread, where a second loop may not start."""
    import threading

    import anyio

    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = anyio.run(main)
        except BaseException as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="mcp-client")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")
