"""The pythonic runtime API: devices, memory, streams, events, modules, launches."""
