"""Flask on werkzeug's development server, single-threaded (what `flask run --without-threads` does).

One thread accepts and serves one HTTP/1.0 request at a time; a slow Mongo or Redis call blocks
every other client. No debugger, no reloader. A baseline, not a production server.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_dev")
