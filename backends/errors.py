"""The one exception the web apps map to 503: a backend that is down, unreachable or too slow."""


class BackendUnavailable(Exception):
    """A connection failure, timeout or server-selection error talking to Mongo or Redis."""
