"""Falcon on the stdlib's wsgiref.simple_server: one thread, one request per connection.

HTTP/1.0 and a listen backlog of 5: the reference WSGI server, not a production one.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_wsgiref")
