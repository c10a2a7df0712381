"""The processes zmon runs as: the main process, the collection worker, the HTTP process.

The supervisor starts and restarts the worker; the channel carries updates between them."""
