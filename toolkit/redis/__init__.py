"""The shared Redis toolkit: connection, key names, Lua scripts, locks, ids, limiters.

It knows nothing about shops or vouchers; the apps build on it.
"""
