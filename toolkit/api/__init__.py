"""Shared DRF pieces: exception handler, pagination, throttles, URL converters."""
