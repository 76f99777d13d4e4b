"""A bare WSGI callable on the stdlib's wsgiref.simple_server: one thread, one request per connection.

HTTP/1.0 and a listen backlog of 5: the reference WSGI server, not a production one.
The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("bare_wsgiref")
