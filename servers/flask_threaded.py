"""Flask on werkzeug's development server with a new thread per connection (`app.run(threaded=True)`).

werkzeug closes every connection (no keep-alive); blocking driver calls block only their thread. Threads are unbounded.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_threaded")
