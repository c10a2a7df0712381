"""The ground floor: errors, logging, child processes, the command runner, durable state files.

Everything above may import it; it imports nothing of zmon's but itself."""
