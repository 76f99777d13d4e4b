"""Mongo and Redis access for the reference servers, the seed loader and a local backend runner.

Importing this package opens no connection; clients are created lazily where they are used.
"""

DEFAULT_MONGO_URL = "mongodb://127.0.0.1:27017/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

DB_NAME = "test"
COLLECTION = "user"
FORTUNE_COLLECTION = "fortune"  # TechEmpower's fortunes test: its twelve rows (backends.seed.FORTUNES)
REDIS_KEY = "name"
DEFAULT_USERS = 10_000  # users 1..N are seeded: TechEmpower's World table
