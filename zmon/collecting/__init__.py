"""How collecting is done: the collector interface and registry, the scheduler, the config."""
