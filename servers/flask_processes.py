"""Flask on werkzeug's development server forking a process per connection (`app.run(processes=N)`).

At most --workers children at once; each child serves one connection and exits, so every pooled
client lives only as long as that connection.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_processes")
