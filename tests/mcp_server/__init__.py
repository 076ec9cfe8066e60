

def run_async(main):
    """``anyio.run(main)`` in a thread of its own: the sync Playwright API of the browser tests
    leaves an event loop running in the main thread, where a second loop may not start."""
    import threading

    import anyio

    values: list[object] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            values.append(anyio.run(main))
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=target, name="mcp-client")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return values[0] if values else None
