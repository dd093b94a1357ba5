"""The opening explorer in the web app: the masters' index built in the background at
start, lookups off the event loop, and the master games shown read-only by their id."""
