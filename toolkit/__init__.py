"""The technical toolkit: Redis (client, keys, Lua, cache, locks, ids, limiters),
the API's error contract and machinery, clock, runtime, logs and metric primitives.

It imports no app (pyproject.toml's import-linter contracts keep it so); the apps
and the project root (dianping/) build on it."""
