"""Built-in collectors: one package each, whose ``__init__`` registers it
(``zmon.collecting.registry``)."""
