"""Flask on the stdlib's wsgiref.simple_server: one thread, one request per connection.

HTTP/1.0, a listen backlog of 5: connections beyond that are refused under load (a finding).
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_wsgiref")
