"""Built-in collectors; each module registers itself with ``zmon.registry.register``."""
