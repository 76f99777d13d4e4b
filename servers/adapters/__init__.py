"""Server adapters, each written once and serving any app of the interface it speaks.

Every adapter is `serve(app_path, options, ready)`: it imports the app factory at app_path
in the process that will serve requests (after any fork), binds options.host:port, calls
ready() once the socket accepts connections, and returns after SIGTERM or SIGINT.
Adapters import no app and no backend.
"""
